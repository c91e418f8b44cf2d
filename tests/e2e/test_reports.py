"""Reports in every format, from one model: they parse, agree, and hold what was asked."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_runner import run_mlspace

from mlspace import fmt
from mlspace.demo import generate
from mlspace.report.render import CSV_COLUMNS, REST_KIND

REPORT_SCHEMA_KEYS = {
    "version", "sizes", "generated", "host", "roots", "totals", "unreadable", "scan_seconds",
    "cancelled", "categories", "ages", "runs", "series", "top_artifacts", "artifacts",
    "suggestions", "reclaimable", "reclaimable_apparent", "reclaimable_by_risk",
    "reclaimable_by_risk_apparent", "cleanups", "growth", "disks", "outside_artifacts",
}


def report(root: Path, out: Path, *flags: str) -> str:
    result = run_mlspace("report", str(root), "-o", str(out), *flags)
    assert result.returncode == 0, result.stderr
    return out.read_text()


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("reports")
    root = generate(base / "ws")
    return {ext: report(root, base / f"r.{ext}") for ext in ("json", "html", "csv", "md")}


def test_json_round_trips_with_documented_keys(reports: dict[str, str]) -> None:
    doc = json.loads(reports["json"])
    assert set(doc) == REPORT_SCHEMA_KEYS
    assert doc["version"] == 1
    assert json.loads(json.dumps(doc)) == doc
    assert sum(c["disk_usage"] for c in doc["categories"]) == doc["totals"]["disk_usage"]
    assert doc["reclaimable"] == sum(s["bytes"] for s in doc["suggestions"])
    run = next(r for r in doc["runs"] if r["name"] == "bert-large-lr3e-4")
    assert (run["best"], run["best_metric"], run["latest_step"]) == (
        "checkpoint-7000", "eval_loss", 12000)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:  # noqa: ANN001
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_parses_and_holds_totals_and_every_suggestion(reports: dict[str, str]) -> None:
    doc = json.loads(reports["json"])
    parser = _Text()
    parser.feed(reports["html"])
    text = " ".join(parser.text)
    assert "svg" in parser.tags and "table" in parser.tags
    assert "http" not in reports["html"].replace("http://www.w3.org/2000/svg", "")
    assert fmt.size(doc["totals"]["disk_usage"]) in text
    for s in doc["suggestions"]:
        assert s["title"] in text
    risk = doc["reclaimable_by_risk"]
    assert risk["safe"] == sum(s["bytes"] for s in doc["suggestions"] if s["risk"] == "safe")
    assert risk["review"] > 0  # the demo has review suggestions: never counted as safe
    assert f"{fmt.size(risk['safe'])} can be reclaimed safely; " \
        f"{fmt.size(risk['review'])} more after review" in " ".join(text.split())


def test_csv_has_one_row_per_artifact(reports: dict[str, str]) -> None:
    doc = json.loads(reports["json"])
    rows = list(csv.DictReader(io.StringIO(reports["csv"])))
    assert tuple(rows[0]) == CSV_COLUMNS
    items = [r for r in rows if r["kind"] != REST_KIND]
    assert len(items) == len(doc["artifacts"])
    rest = {r["category"]: int(r["disk_usage"]) for r in rows if r["kind"] == REST_KIND}
    assert rest == {c: r["disk_usage"] for c, r in doc["outside_artifacts"].items()
                    if r["disk_usage"]}
    best = next(r for r in rows if r["path"].endswith("bert-large-lr3e-4/checkpoint-7000"))
    assert best["is_best"] == "True" and best["category"] == "checkpoint"
    old = next(r for r in rows if r["path"].endswith("bert-large-lr3e-4/checkpoint-1000"))
    assert old["suggestion_id"].startswith("checkpoint-retention-")
    assert sum(int(r["disk_usage"]) for r in rows if r["kind"] == "checkpoint") == sum(
        a["disk_usage"] for a in doc["artifacts"] if a["kind"] == "checkpoint")


def test_markdown_has_the_category_table_and_agrees(reports: dict[str, str]) -> None:
    doc = json.loads(reports["json"])
    md = reports["md"]
    assert "| Category | On disk | Share | Files |" in md
    checkpoint = next(c for c in doc["categories"] if c["id"] == "checkpoint")
    assert f"| Checkpoints | {fmt.size(checkpoint['disk_usage'])} |" in md
    risk = doc["reclaimable_by_risk"]
    assert f"**{fmt.size(risk['safe'])}** can be reclaimed safely; " \
        f"**{fmt.size(risk['review'])}** more after review." in md


def test_unknown_extension_is_a_usage_error(tmp_path: Path) -> None:
    result = run_mlspace("report", str(tmp_path), "-o", str(tmp_path / "r.pdf"))
    assert result.returncode == 2 and "use .html, .csv, .json or .md" in result.stderr


def test_cleanups_of_other_folders_stay_out_of_a_report(tmp_path: Path) -> None:
    """A report lists only the cleanups made under its own folders."""
    from mlspace.act import execute
    from mlspace.advise import advise
    from mlspace.classify import classify
    from mlspace.report.model import build_report
    from mlspace.scan import ScanOptions, scan

    here, elsewhere = generate(tmp_path / "here"), generate(tmp_path / "elsewhere")
    inv = classify(scan([elsewhere], ScanOptions(workers=1)))
    caches = [s for s in advise(inv).suggestions if s.policy == "python-caches"]
    done = execute(caches, [str(elsewhere)], recent_seconds=0)
    inv_here = classify(scan([here], ScanOptions(workers=1)))
    assert build_report(inv_here, advise(inv_here)).data["cleanups"] == []
    listed = build_report(inv, advise(inv)).data["cleanups"]
    assert [c["id"] for c in listed] == [done.cleanup_id]
    assert listed[0]["roots"] == [str(elsewhere)]


def test_growth_section_over_the_saved_scans(tmp_path: Path) -> None:
    """Two saved scans, a run added since the second: the report shows each scan's totals
    per category and names the new run as the largest change, as `mlspace diff` does; with
    no saved scan the section is left out."""
    import time

    root = generate(tmp_path / "ws")
    none_yet = json.loads(report(root, tmp_path / "none.json"))
    assert none_yet["growth"] is None
    assert "<h2>Growth</h2>" not in report(root, tmp_path / "none.html")
    assert "### Growth" not in report(root, tmp_path / "none.md")
    for _ in range(2):
        saved = run_mlspace("scan", str(root), "--save")
        assert saved.returncode == 0, saved.stderr
        time.sleep(1.1)  # history ids count seconds
    run = root / "outputs" / "gpt-tiny"
    (run / "checkpoint-10").mkdir(parents=True)
    (run / "checkpoint-10" / "model.safetensors").write_bytes(b"w" * (3 << 20))

    doc = json.loads(report(root, tmp_path / "r.json"))
    growth = doc["growth"]
    assert [s["id"] is None for s in growth["scans"]] == [False, False, True]
    this = growth["scans"][-1]
    assert this["disk_usage"] == doc["totals"]["disk_usage"]
    assert this["categories"] == {c["id"]: c["disk_usage"] for c in doc["categories"]}
    assert growth["since"]["id"] == growth["scans"][1]["id"]
    changes = growth["changes"]
    assert [(c["path"], c["status"]) for c in changes] == [(str(run), "new")]
    assert growth["delta"] == changes[0]["delta"] >= 3 << 20

    parser = _Text()
    page = report(root, tmp_path / "r.html")
    parser.feed(page)
    text = " ".join(" ".join(parser.text).split())
    assert "Growth" in text and "This report" in text
    assert f"{fmt.change(growth['delta'])} on disk since the scan of " \
        f"{growth['since']['date']}" in text
    assert str(run) in text and fmt.change(changes[0]["delta"]) in text
    for scan in growth["scans"][:-1]:
        assert scan["date"] in text and fmt.size(scan["disk_usage"]) in text
    assert "<script" not in page

    md = report(root, tmp_path / "r.md")
    assert f"### Growth\n\n{fmt.change(growth['delta'])} on disk since the scan of " \
        f"{growth['since']['date']}." in md
    for scan in growth["scans"][:-1]:
        assert f"| {scan['date']} | {fmt.size(scan['disk_usage'])} |" in md
    assert f"| This report | {fmt.size(this['disk_usage'])} |" in md
    assert f"| {fmt.change(changes[0]['delta'])} | " in md and f"`{run}`" in md



def test_apparent_reports_show_and_order_by_apparent_size(tmp_path: Path) -> None:
    """`report --apparent` (and the app in apparent sizes): the demo's files are sparse, so
    on disk its report read 168 KiB reclaimable while the window showed 68.9 GiB."""
    root = generate(tmp_path / "ws")
    doc = json.loads(report(root, tmp_path / "r.json", "--apparent"))
    assert doc["sizes"] == "apparent"
    assert [a["apparent_size"] for a in doc["top_artifacts"]] == sorted(
        (a["apparent_size"] for a in doc["top_artifacts"]), reverse=True)
    ages = sum(v for a in doc["ages"] for v in a["by_category_apparent"].values())
    assert 0 < ages <= doc["totals"]["apparent_size"]
    markdown = report(root, tmp_path / "r.md", "--apparent")
    safe = doc["reclaimable_by_risk_apparent"]["safe"]
    assert f"**{fmt.size(safe)}** can be reclaimed safely" in markdown
    assert f"{fmt.size(doc['totals']['apparent_size'])} apparent (" in markdown
    html_text = report(root, tmp_path / "r.html", "--apparent")
    assert "Sizes are apparent" in html_text
    assert f"<h2>Suggested cleanups ({fmt.size(doc['reclaimable_apparent'])})</h2>" in html_text
