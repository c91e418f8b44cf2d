"""Render a report model to HTML (self-contained, inline SVG charts, prints well), CSV (one
row per artifact, and per category one for the rest), JSON and Markdown. Format by file
extension. Items are listed with the bytes that are their own (mlspace.report.once)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from mlspace import fmt
from mlspace.report.model import Report

CSV_COLUMNS = ("path", "category", "kind", "disk_usage", "apparent_size", "mtime", "age_days",
               "run", "series", "is_best", "is_latest", "suggestion_id")
#: The kind of the CSV rows that hold, per category, what belongs to no artifact: with them
#: the rows add up to the report's categories.
REST_KIND = "rest"


def render_json(report: Report) -> str:
    return json.dumps(report.data, indent=1) + "\n"


def render_csv(report: Report) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for a in report.data["artifacts"]:
        writer.writerow([a[c] if a[c] is not None else "" for c in CSV_COLUMNS])
    for category, rest in report.data["outside_artifacts"].items():  # what no item holds
        if rest["disk_usage"] or rest["apparent_size"]:
            writer.writerow(["", category, REST_KIND, rest["disk_usage"],
                             rest["apparent_size"], *[""] * (len(CSV_COLUMNS) - 5)])
    return out.getvalue()


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _md_code(text: str) -> str:
    """``text`` as a Markdown code span that stays one, whatever it holds: a fence longer
    than any run of backticks inside, table pipes escaped, control characters shown."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_text(text: str) -> str:
    """Plain text in Markdown: no raw HTML, no accidental emphasis, links or table cells."""
    text = _CONTROL.sub(" ", text)
    return re.sub(r"([\\`*_{}\[\]()#+!|<>~])", r"\\\1", text)


@dataclass(frozen=True)
class _Sizes:
    """Which of the document's two sizes the HTML and Markdown show (its "sizes")."""

    apparent: bool

    @property
    def key(self) -> str:  # of totals, categories, artifacts, runs
        return "apparent_size" if self.apparent else "disk_usage"

    @property
    def freed(self) -> str:  # of suggestions
        return "apparent_bytes" if self.apparent else "bytes"

    @property
    def word(self) -> str:
        return "apparent" if self.apparent else "on disk"

    def headline(self, t: dict) -> tuple[str, str]:
        """(the total in this size, the other in brackets)."""
        disk = f"{fmt.size(t['disk_usage'])} on disk"
        apparent = f"{fmt.size(t['apparent_size'])} apparent"
        return (apparent, disk) if self.apparent else (disk, apparent)

    def ages(self, a: dict) -> dict:
        return a["by_category_apparent"] if self.apparent else a["by_category"]


def _sizes(d: dict) -> _Sizes:
    return _Sizes(d.get("sizes") == "apparent")


def render_markdown(report: Report) -> str:
    d = report.data
    t, sz = d["totals"], _sizes(d)
    shown, other = sz.headline(t)
    lines = [f"## Disk usage of {', '.join(_md_code(r) for r in d['roots'])}", "",
             *(f"**{_md_text(x['line'])}**  " for x in d["disks"]),
             *([""] if d["disks"] else []),
             f"{shown} ({other}) in "
             f"{fmt.plural(t['files'], 'file')}, on {d['host']}, {d['generated']}.", "",
             f"| Category | {sz.word.capitalize()} | Share | Files |", "|---|---:|---:|---:|"]
    for c in d["categories"]:
        if c["files"] or c["disk_usage"]:
            share = c[sz.key] / t[sz.key] if t[sz.key] else 0.0
            lines.append(f"| {c['label']} | {fmt.size(c[sz.key])} | "
                         f"{100 * share:.0f}% | {fmt.count(c['files'])} |")
    lines += _unreadable_markdown(d)
    lines += ["", "### Largest items", "", "| Size | Category | Path |", "|---:|---|---|"]
    for a in d["top_artifacts"][:10]:
        lines.append(f"| {fmt.size(a[sz.key])} | {a['category']} | {_md_code(a['path'])} |")
    lines += ["", "### Suggested cleanups", "",
              _reclaimable_sentence(d, lambda text: f"**{text}**") + ".", ""]
    for s in d["suggestions"]:
        lines.append(f"- **{_md_text(s['title'])}** ({fmt.size(s[sz.freed])}, {s['risk']}): "
                     f"{_md_text(s['reason'])}")
    if not d["suggestions"]:
        lines.append("Nothing to suggest.")
    lines += _growth_markdown(d)
    return "\n".join(lines) + "\n"


def _unreadable_markdown(d: dict) -> list[str]:
    """What the totals leave out because it could not be read: said before any number."""
    if not d["totals"]["errors"]:
        return []
    lines = ["", f"**{_left_out(d)}**", ""]
    lines += [f"- {_md_code(u['path'])}: {_md_text(u['error'])}" for u in d["unreadable"]]
    return lines


def _left_out(d: dict) -> str:
    count = d["totals"]["errors"]
    more = count - len(d["unreadable"])
    return (f"{fmt.plural(count, 'path')} could not be read, so the totals leave "
            f"{'it' if count == 1 else 'them'} out" + (f" ({more} not listed here)" if more > 0
                                                       else "") + ":")


def _growth_markdown(d: dict) -> list[str]:
    """The HTML report's growth section as tables: each saved scan's total, then the largest
    changes since the previous one; nothing when no scan was kept before."""
    growth = d.get("growth")
    if not growth:
        return []
    since = growth["since"]["date"]
    lines = ["", "### Growth", "",
             f"{fmt.change(growth['delta'])} on disk since the scan of {since}"
             + (f" ({growth['earlier']} earlier saved scans not shown)" if growth["earlier"]
                else "") + ".", "", "| Scan | On disk |", "|---|---:|"]
    lines += [f"| {s['date'] if s['id'] else 'This report'} | {fmt.size(s['disk_usage'])} |"
              for s in growth["scans"]]
    changes = growth["changes"]
    if changes is None:
        return [*lines, "", f"The scan of {since} can no longer be read: no changes listed."]
    if not changes:
        return [*lines, "", f"Nothing changed since {since}."]
    lines += ["", f"#### Largest changes since {since}", "",
              "| Change | Before | After | Status | Category | Folder |",
              "|---:|---:|---:|---|---|---|"]
    lines += [f"| {fmt.change(c['delta'])} | {fmt.size(c['before'])} | {fmt.size(c['after'])} "
              f"| {c['status']} | {c['category']} | {_md_code(c['path'])} |" for c in changes]
    return lines


def _reclaimable_sentence(d: dict, strong: Callable[[str], str]) -> str:
    """'1.2 GiB can be reclaimed safely; 3.4 GiB more after review': items marked review
    are never counted as safe."""
    risk = d["reclaimable_by_risk_apparent" if _sizes(d).apparent else "reclaimable_by_risk"]
    text = f"{strong(fmt.size(risk['safe']))} can be reclaimed safely"
    if risk["review"]:
        text += f"; {strong(fmt.size(risk['review']))} more after review"
    if risk["risky"]:
        text += f"; {fmt.size(risk['risky'])} only at your own risk"
    return text


def _bar_chart_svg(rows: list[tuple[str, list[tuple[int, str]]]], width: int = 560) -> str:
    """Horizontal (stacked) bars: rows of (label, [(value, colour), ...])."""
    total_max = max((sum(v for v, _ in segs) for _, segs in rows), default=0) or 1
    bar_h, gap, label_w = 22, 8, 150
    height = len(rows) * (bar_h + gap) + gap
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width + label_w + 90}" '
             f'height="{height}" role="img">']
    for i, (label, segments) in enumerate(rows):
        y = gap + i * (bar_h + gap)
        parts.append(f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end" '
                     f'font-size="13">{html.escape(label)}</text>')
        x = float(label_w)
        for value, color in segments:
            w = width * value / total_max
            if w > 0:
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                             f'fill="{color}"/>')
            x += w
        total = sum(v for v, _ in segments)
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 16}" font-size="12">'
                     f'{html.escape(fmt.size(total))}</text>')
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;
margin:2em auto;padding:0 1em;color:#222}
h1{margin-bottom:.2em} .meta{color:#666} table{border-collapse:collapse;width:100%;
margin:.5em 0 1.5em} th,td{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;
vertical-align:top} td.n,th.n{text-align:right;white-space:nowrap} .risk-safe{color:#2a7}
.risk-review{color:#c80} .risk-risky{color:#c33} .swatch{display:inline-block;width:.8em;
height:.8em;margin-right:.4em} .path{font-family:monospace;font-size:90%;word-break:break-all}
@media print{body{margin:0;max-width:none} h2{page-break-after:avoid} table{page-break-inside:auto}}
"""


def render_html(report: Report) -> str:
    d = report.data
    t, sz = d["totals"], _sizes(d)
    e = html.escape
    colors = {c["id"]: c["color"] for c in d["categories"]}
    cat_rows = [(c["label"], [(c[sz.key], c["color"])]) for c in d["categories"]
                if c["disk_usage"] or c["files"]]
    age_rows = [(a["label"], [(v, colors[k]) for k, v in sz.ages(a).items()])
                for a in d["ages"]]
    shown, other = sz.headline(t)
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>mlspace report: "
           f"{e(', '.join(d['roots']))}</title><style>{_CSS}</style></head><body>",
           f"<h1>Where the disk went</h1><p class='meta'>{e(', '.join(d['roots']))} · host "
           f"{e(d['host'])} · {e(d['generated'])} · scanned in {fmt.duration(d['scan_seconds'])}"
           "</p>",
           *(f"<p class='disk'><b>{e(x['line'])}</b></p>" for x in d["disks"]),
           f"<p><b>{shown}</b> ({other}) "
           f"in {fmt.plural(t['files'], 'file')} and {fmt.plural(t['dirs'], 'folder')}"
           + (f"; {t['errors']} paths could not be read" if t["errors"] else "") + ". "
           f"{_reclaimable_sentence(d, lambda text: f'<b>{text}</b>')} (see below).</p>",
           *_unreadable_html(d),
           "<h2>By category</h2>", _bar_chart_svg(cat_rows),
           "<h2>Files by age and category</h2>", _bar_chart_svg(age_rows),
           f"<p class='meta'>Files only: folders' own listings ({fmt.size(_listings(d))}) "
           "are not in these bars.</p>",
           "<p>" + " ".join(f"<span class='swatch' style='background:{c['color']}'></span>"
                            f"{e(c['label'])}" for c in d["categories"]) + "</p>"]
    out += ["<h2>Runs</h2>", _table(
        ["Run", "Tool", "Size", "Checkpoints", "Best", "Latest"],
        [[e(r["name"]), e(r["tool"] or ""), fmt.size(r[sz.key]), str(r["checkpoints"]),
          e(r["best"] or "—") + (f" ({e(r['best_metric'])} {r['best_value']:g})"
                                 if r["best_metric"] and r["best_value"] is not None else ""),
          e(r["latest"] or "—") + (f" (step {r['latest_step']})"
                                   if r["latest_step"] is not None else "")]
         for r in d["runs"][:30]], numeric={2, 3})]
    out += [f"<h2>The {len(d['top_artifacts'])} largest items</h2>", _table(
        ["Size", "Category", "Kind", "Age (days)", "Path"],
        [[fmt.size(a[sz.key]), e(a["category"]), e(a["kind"]), f"{a['age_days']:g}",
          f"<span class='path'>{e(a['path'])}</span>"] for a in d["top_artifacts"]],
        numeric={0, 3})]
    reclaimable = d["reclaimable_apparent" if sz.apparent else "reclaimable"]
    out += [f"<h2>Suggested cleanups ({fmt.size(reclaimable)})</h2>"]
    if d["suggestions"]:
        out.append(_table(
            ["Suggestion", "Frees", "Risk", "Why", "Paths"],
            [[e(s["title"]), fmt.size(s[sz.freed]),
              f"<span class='risk-{e(s['risk'])}'>{e(s['risk'])}</span>", e(s["reason"]),
              "<br>".join(f"<span class='path'>{e(p)}</span>" for p in s["paths"][:12])
              + (f"<br>… and {len(s['paths']) - 12} more" if len(s["paths"]) > 12 else "")]
             for s in d["suggestions"]], numeric={1}))
    else:
        out.append("<p>Nothing to suggest.</p>")
    out += _growth_html(d)
    out.append("<h2>Cleanups done</h2>")
    if d["cleanups"]:
        out.append(_table(["When", "What", "Items", "Moved", "Freed", "Now"],
                          [[e(c["date"]), e(c["title"]), str(c["items"]), fmt.size(c["moved"]),
                            fmt.size(c["freed"]) if c["freed"] else "—", e(c["state"])]
                           for c in d["cleanups"]], numeric={2, 3, 4}))
    else:
        out.append("<p>None yet.</p>")
    out.append("<p class='meta'>Made by mlspace. Sizes are "
               + ("apparent (what the files hold; sparse files take less on disk)" if sz.apparent
                  else "on disk (allocated blocks)")
               + " (cleanups done and growth: on disk); hard links are counted once."
               "</p></body></html>")
    return "\n".join(out)


def _listings(d: dict) -> int:
    """The space of folders' own listings: the total less the files the age chart holds."""
    sz = _sizes(d)
    return d["totals"][sz.key] - sum(v for a in d["ages"] for v in sz.ages(a).values())


def _unreadable_html(d: dict) -> list[str]:
    if not d["totals"]["errors"]:
        return []
    return [f"<p><b>{html.escape(_left_out(d))}</b></p><ul>"
            + "".join(f"<li><span class='path'>{html.escape(u['path'])}</span>: "
                      f"{html.escape(u['error'])}</li>" for u in d["unreadable"]) + "</ul>"]


def _growth_html(d: dict) -> list[str]:
    """Space per category at each saved scan of the folders (stacked bars), and the
    largest changes since the previous one; nothing when none was kept before."""
    growth = d.get("growth")
    if not growth:
        return []
    e = html.escape
    colors = {c["id"]: c["color"] for c in d["categories"]}
    rows = [(s["date"] if s["id"] else "This report",
             [(v, colors[k]) for k, v in s["categories"].items()]) for s in growth["scans"]]
    since = growth["since"]["date"]
    out = ["<h2>Growth</h2>",
           f"<p>{fmt.change(growth['delta'])} on disk since the scan of {e(since)}"
           + (f" ({growth['earlier']} earlier saved scans not shown)" if growth["earlier"]
              else "") + ".</p>",
           _bar_chart_svg(rows)]
    changes = growth["changes"]
    if changes is None:
        out.append(f"<p>The scan of {e(since)} can no longer be read: no changes listed.</p>")
    elif changes:
        out += [f"<h3>Largest changes since {e(since)}</h3>", _table(
            ["Change", "Before", "After", "Status", "Category", "Folder"],
            [[fmt.change(c["delta"]), fmt.size(c["before"]), fmt.size(c["after"]),
              e(c["status"]), e(c["category"]), f"<span class='path'>{e(c['path'])}</span>"]
             for c in changes], numeric={0, 1, 2})]
    else:
        out.append(f"<p>Nothing changed since {e(since)}.</p>")
    return out


def _table(headers: list[str], rows: list[list[str]], numeric: set[int]) -> str:
    head = "".join(f"<th{' class=n' if i in numeric else ''}>{h}</th>"
                   for i, h in enumerate(headers))
    body = "".join("<tr>" + "".join(f"<td{' class=n' if i in numeric else ''}>{c}</td>"
                                    for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


RENDERERS: dict[str, Callable[[Report], str]] = {
    ".html": render_html, ".htm": render_html, ".csv": render_csv, ".json": render_json,
    ".md": render_markdown,
}


def renderer_for(path: str) -> Callable[[Report], str]:
    for ext, renderer in RENDERERS.items():
        if path.lower().endswith(ext):
            return renderer
    raise ValueError(f"unknown report format for {path}: use .html, .csv, .json or .md")
