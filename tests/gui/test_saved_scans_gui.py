"""Saved scans in the app: opened from `mlspace FILE`, File → Open scan… and a drop, shown
with whose scan it is and how old, cleaned up only where its folders are on this machine,
saved again with File → Save scan…, and every finished scan kept in the history."""

from __future__ import annotations

import dataclasses
import os
import platform
import time
from pathlib import Path

import pytest
from cleanup_helpers import tree_digest
from gui_helpers import check_only, confirm_when_asked, right_click_row, show_tab
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from mlspace.classify import classify
from mlspace.demo import generate
from mlspace.index import history
from mlspace.index.info import ScanInfo
from mlspace.index.ncdu_write import write_ncdu
from mlspace.index.parquet_dataset_write import write_dataset
from mlspace.index.parquet_write import write_parquet
from mlspace.scan import ScanOptions, scan
from mlspace.ui.cleanup_dialogs import ConfirmCleanup
from mlspace.ui.main_window import MainWindow
from mlspace.ui.tree_model import APPARENT, FILES, NAME, ON_DISK, VALUE_ROLE

DAY = 86400.0
RUN = "outputs/bert-large-lr3e-4"


def save_parquet(root: Path, target: Path, options: ScanOptions | None = None,
                 **info: object) -> Path:
    """Scan ``root`` as `mlspace scan ROOT -o TARGET` does, with ScanInfo fields replaced
    by ``info`` (another host, an older date)."""
    options = options or ScanOptions(workers=1)
    started = time.time()
    inventory = classify(scan([str(root)], options))
    made = dataclasses.replace(ScanInfo.here(started, options=options), **info)
    write_parquet(str(target), inventory, made)
    return target


def save_ncdu(root: Path, target: Path) -> Path:
    with open(target, "wb") as out:
        write_ncdu(scan([str(root)], ScanOptions(workers=1)), out)
    return target


def drop_on(window: MainWindow, qtbot: QtBot, path: Path) -> None:
    """Drop ``path`` on the window and wait until what it opened is shown."""
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(path))])
    drop = QDropEvent(QPointF(40, 40), Qt.DropAction.CopyAction, data,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.dropEvent(drop)  # Qt delivers a drop only inside a drag a person makes


def new_window(qtbot: QtBot) -> MainWindow:
    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1280, 820)
    win.show()
    return win


def open_in(window: MainWindow, qtbot: QtBot, path: Path) -> None:
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.open_paths([str(path)])


def rows(window: MainWindow) -> list[tuple[object, ...]]:
    """The scanned folder's row and its children's: name, on disk, apparent, files."""
    model = window.model
    top = model.index(0, 0)
    indexes = [top] + [model.index(r, 0, top) for r in range(model.rowCount(top))]
    return sorted(tuple(model.index(i.row(), column, i.parent()).data(VALUE_ROLE)
                        for column in (NAME, ON_DISK, APPARENT, FILES)) for i in indexes)


def test_a_saved_scan_opens_with_the_live_scans_tree_and_says_whose_it_is(
        window: MainWindow, qtbot: QtBot, demo_root: Path, tmp_path: Path) -> None:
    live_rows, live = rows(window), window.ws.inventory.snapshot.grand_totals()
    live_categories = window.ws.chart_categories()
    assert window.windowTitle() == str(demo_root)

    open_in(window, qtbot, save_parquet(demo_root, tmp_path / "lab.parquet"))
    assert rows(window) == live_rows
    assert window.ws.inventory.snapshot.grand_totals() == live
    assert window.ws.chart_categories() == live_categories  # the saved classification
    shown = f"scan of {platform.node()}:{demo_root}, made just now"
    assert window.windowTitle() == shown
    assert window.status.text().startswith(f"S{shown[1:]} · ")
    assert window.ws.read_only_reason == ""  # its folder is here: cleanups are offered

    open_in(window, qtbot, save_ncdu(demo_root, tmp_path / "lab.json"))
    assert rows(window) == live_rows
    assert window.windowTitle() == f"scan of {demo_root}, made just now"


def test_file_menu_offers_open_and_save_scan(window: MainWindow, qtbot: QtBot,
                                             demo_root: Path, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    file_menu = window.menuBar().actions()[0].menu()
    names = [a.text() for a in file_menu.actions()]
    assert "Open &scan…" in names and "&Save scan…" in names
    saved = save_parquet(demo_root, tmp_path / "lab.parquet")
    asked = []

    def choose(parent: object, caption: str, folder: str, filters: str) -> tuple[str, str]:
        asked.append(filters)
        return str(saved), filters.split(";;")[0]

    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.open_scan_action.trigger()
    assert asked[0].split(";;") == ["mlspace scans (*.parquet _metadata)",
                                    "ncdu/gdu exports (*.json *.json.gz)", "All files (*)"]
    assert window.source.file == str(saved)
    assert "scan of" in window.windowTitle()


@pytest.mark.parametrize("elsewhere", ["moved", "other host"])
def test_a_scan_whose_folder_is_not_here_offers_no_cleanup(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, elsewhere: str
) -> None:
    scanned = generate(tmp_path / "lab")
    if elsewhere == "moved":
        saved = save_parquet(scanned, tmp_path / "lab.parquet")
        here = scanned.rename(tmp_path / "renamed")
        reason = f"{scanned} is no longer on this machine"
        title = f"scan of {platform.node()}:{scanned}, made just now"
    else:
        saved = save_parquet(scanned, tmp_path / "lab.parquet", host="gpu-node3",
                             finished=time.time() - 2 * DAY)
        here = scanned.rename(tmp_path / "elsewhere")  # no folder of that name here
        reason = f"scanned on gpu-node3; {scanned} is not on this machine"
        title = f"scan of gpu-node3:{scanned}, 2 days old"
    before = tree_digest(here)

    def never_asked(self: ConfirmCleanup) -> int:
        raise AssertionError("a cleanup was offered for a folder that is not here")

    monkeypatch.setattr(ConfirmCleanup, "exec", never_asked)
    window = new_window(qtbot)
    open_in(window, qtbot, saved)
    assert window.windowTitle() == title
    assert window.ws.read_only_reason == reason
    assert f"No cleanups from this scan: {reason}" in window.status.text()
    assert not window.rescan_action.isEnabled()  # F5 would scan another folder
    suggestions = window.ws.plan.suggestions
    assert suggestions  # still listed, with what they would free there
    assert all(window.ws.cleanup_refused(s.paths) == reason for s in suggestions)

    actions = right_click_row(window, str(scanned / RUN))
    assert actions[1].text() == f"No cleanup from this scan: {reason}"
    offered = [a for a in actions if a.text().startswith(("Keep best", "Move to trash"))]
    assert len(offered) >= 2 and not any(a.isEnabled() for a in offered)
    # In the Suggestions tab each is listed, greyed, its box not to be checked; the button
    # stays off, and a click on it moves nothing.
    show_tab(window, window.suggestions)
    rows = window.suggestions.suggestion_items()
    assert len(rows) == len(suggestions)
    assert not any(row.flags() & Qt.ItemFlag.ItemIsUserCheckable for row in rows)
    assert all(row.toolTip(0) == reason for row in rows)
    assert not window.suggestions.clean_button.isEnabled()
    qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    assert getattr(window, "last_dialog", None) is None  # no confirmation was opened
    assert tree_digest(here) == before


@pytest.mark.parametrize("host", [None, "gpu-node3"])  # this machine, or shared storage
def test_an_opened_scan_of_folders_here_cleans_re_checks_and_undoes(
        qtbot: QtBot, tmp_path: Path, host: str | None) -> None:
    root = generate(tmp_path / "lab")
    saved = save_parquet(root, tmp_path / "lab.parquet", **({"host": host} if host else {}))
    changed = root / RUN / "checkpoint-2000" / "trainer_state.json"
    with open(changed, "a") as f:  # written after the scan: must be refused
        f.write(" ")
    os.utime(changed, (time.time() - 30 * DAY, time.time() - 30 * DAY))
    before = tree_digest(root)
    window = new_window(qtbot)
    open_in(window, qtbot, saved)
    actions = right_click_row(window, str(root / RUN))
    keep = next(a for a in actions if a.text().startswith("Keep best 1 + latest 2"))
    assert keep.isEnabled()
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        keep.trigger()
    assert not (root / RUN / "checkpoint-1000").exists()
    assert (root / RUN / "checkpoint-2000").exists()
    assert "skipped" in window.status.text()
    assert f"{root / RUN / 'checkpoint-2000'}: changed since the scan" in \
        window.status.toolTip()
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        window.undo_last_cleanup()
    assert tree_digest(root) == before


def test_an_ncdu_export_offers_cleanups_only_after_f5(qtbot: QtBot, demo_root: Path,
                                                     tmp_path: Path) -> None:
    window = new_window(qtbot)
    open_in(window, qtbot, save_ncdu(demo_root, tmp_path / "lab.json"))
    assert "ncdu export" in window.ws.read_only_reason  # best and latest are not known
    assert window.rescan_action.isEnabled()
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.rescan_action.trigger()
    assert window.source.file == "" and window.ws.read_only_reason == ""
    assert window.windowTitle() == str(demo_root)


def test_f5_on_an_opened_scan_scans_what_it_covered(qtbot: QtBot, demo_root: Path,
                                                   tmp_path: Path) -> None:
    options = ScanOptions(workers=1, exclude=("*.arrow",))
    saved = save_parquet(demo_root, tmp_path / "lab.parquet", options)
    window = new_window(qtbot)
    open_in(window, qtbot, saved)
    opened = rows(window)
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.rescan_action.trigger()
    assert window.source.file == "" and window.source.info.options["exclude"] == ["*.arrow"]
    assert rows(window) == opened


def test_save_scan_writes_what_opens_again_in_either_format(
        window: MainWindow, qtbot: QtBot, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    live = rows(window)
    answers = iter([(str(tmp_path / "lab"), "mlspace scan (*.parquet)"),
                    (str(tmp_path / "lab.json.gz"), "ncdu export (*.json)")])
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: next(answers))
    for written in (tmp_path / "lab.parquet", tmp_path / "lab.json.gz"):
        with qtbot.waitSignal(window.saver.saved, timeout=30_000):
            window.save_scan_action.trigger()  # the live scan, then the reopened one
        assert window.status.text() == f"Scan saved to {written}"
        assert not list(tmp_path.glob("*.partial"))
        open_in(window, qtbot, written)
        assert rows(window) == live


def test_a_save_that_fails_says_why_in_the_status_bar(window: MainWindow, qtbot: QtBot,
                                                     tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "no-such-folder" / "lab.parquet"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(target), ""))
    with qtbot.waitSignal(window.saver.saved, timeout=30_000):
        window.save_scan_action.trigger()
    assert window.status.text().startswith(f"Could not save the scan: cannot write {target}")
    assert not target.parent.exists()


def test_dropping_a_saved_scan_opens_it(qtbot: QtBot, demo_root: Path, tmp_path: Path
                                        ) -> None:
    saved = save_parquet(demo_root, tmp_path / "lab.parquet")
    window = new_window(qtbot)
    drop_on(window, qtbot, saved)
    assert window.source.file == str(saved)
    assert window.windowTitle().startswith(f"scan of {platform.node()}:")


def test_dropping_a_folder_that_holds_a_saved_dataset_opens_the_scan(
        qtbot: QtBot, demo_root: Path, tmp_path: Path) -> None:
    """A cluster scan saved as a dataset (`-o lab.parquet/`) is a folder: dropped, it opens
    as the scan it holds, not as a folder to scan."""
    dataset = tmp_path / "lab.parquet"
    dataset.mkdir()
    inventory = classify(scan([str(demo_root)], ScanOptions(workers=1)))
    write_dataset(str(dataset), inventory, ScanInfo.here(time.time()))
    window = new_window(qtbot)
    drop_on(window, qtbot, dataset)
    assert window.source.file == str(dataset)
    shown = window.ws.inventory.snapshot
    assert shown.roots == (str(demo_root),)
    assert shown.grand_totals() == inventory.snapshot.grand_totals()


@pytest.mark.parametrize("content", [b"PAR1 not really", b"[1,2,{}, [{\"name\":", b"\x00" * 64],
                         ids=["parquet", "truncated ncdu", "zeros"])
def test_a_damaged_saved_scan_gives_a_message_not_a_traceback(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes) -> None:
    damaged = tmp_path / ("lab.parquet" if content.startswith(b"PAR1") else "lab.json")
    damaged.write_bytes(content)
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: said.append(args[2]))
    window = new_window(qtbot)
    with qtbot.waitSignal(window.scanner.refused, timeout=30_000):
        window.open_paths([str(damaged)])
    assert len(said) == 1 and said[0].startswith(f"Cannot open {damaged}:\n\n")
    assert "Traceback" not in said[0] and "File \"" not in said[0]
    assert window.stack.currentIndex() == 0 and not window.ws.loaded  # the welcome page


def test_a_saved_scan_is_opened_on_its_own(window: MainWindow, demo_root: Path,
                                           tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    saved = save_parquet(demo_root, tmp_path / "lab.parquet")
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: said.append(args[2]))
    window.open_paths([str(saved), str(demo_root)])
    assert said == ["A saved scan is opened on its own: open one saved scan, or the folders "
                    "to scan."]
    assert not window.scanner.running


def test_every_finished_scan_is_kept_in_the_history(qtbot: QtBot, tmp_path: Path,
                                                    window: MainWindow) -> None:
    assert history.entries() == []  # the demo (the window's scan) leaves nothing behind
    root = tmp_path / "work"
    (root / "ckpt").mkdir(parents=True)
    (root / "ckpt" / "model.pt").write_bytes(b"w" * 5000)
    open_in(window, qtbot, root)
    first = history.entries(str(root))
    assert len(first) == 1 and first[0].files == 1 and first[0].host == platform.node()
    (root / "ckpt" / "optimizer.pt").write_bytes(b"o" * 5000)
    with qtbot.waitSignal(window.scan_finished, timeout=30_000):
        window.rescan_action.trigger()
    # F5 moments later is the same look at the folder: it replaces the scan kept before.
    kept = history.entries(str(root))
    assert len(kept) == 1 and kept[0].id != first[0].id and kept[0].files == 2


def test_a_scan_that_cannot_be_kept_says_so_in_the_status_bar(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: object, **options: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(history, "save", full)
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("a")
    window = new_window(qtbot)
    open_in(window, qtbot, root)
    assert window.ws.loaded
    assert window.status.text().endswith(
        "This scan could not be kept in mlspace's history ([Errno 28] No space left on device)")


def test_open_scan_starts_where_a_scan_was_last_saved(window: MainWindow, qtbot: QtBot,
                                                      tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Save scan…, then Open scan… on the scan of a folder: the dialog starts in the folder
    the scan went to, not in the home folder."""
    kept = tmp_path / "scans"
    kept.mkdir()
    target = kept / "lab.parquet"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args: (str(target), ""))
    with qtbot.waitSignal(window.saver.saved, timeout=30_000):
        window.save_scan_action.trigger()
    assert target.is_file()
    started: list[str] = []

    def cancel(parent: object, caption: str, folder: str, filters: str) -> tuple[str, str]:
        started.append(folder)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", cancel)
    window.open_scan_action.trigger()
    assert started == [str(kept)]


def forged_best(root: Path, target: Path, run: str, best: str) -> Path:
    """A saved scan of ``root`` whose series record for ``run`` names ``best`` the best
    (as a colleague's file on a shared volume may say), its rows all real."""
    inventory = classify(scan([str(root)], ScanOptions(workers=1)))
    series = next(s for s in inventory.series if s.path == str(root / run))
    ids = {inventory.artifact_by_id[m].name: m for m in series.members}
    forged = dataclasses.replace(series, best=ids[best], protected=tuple(
        ids[best] if p == series.best else p for p in series.protected))
    inventory = dataclasses.replace(inventory, series=tuple(
        forged if s is series else s for s in inventory.series))
    write_parquet(str(target), inventory, ScanInfo.here(time.time()))
    return target


def test_a_saved_scans_records_never_decide_what_the_app_trashes(
        qtbot: QtBot, tmp_path: Path) -> None:
    """The file names checkpoint-1000 best; trainer_state.json on disk names
    checkpoint-7000. The cleanup planned from the file is planned again from the disk
    before the confirmation: the true best stays, and the confirmation says why; what both
    plans suggest goes."""
    root = generate(tmp_path / "lab")
    run = root / RUN
    saved = forged_best(root, tmp_path / "shared.parquet", RUN, "checkpoint-1000")
    window = new_window(qtbot)
    open_in(window, qtbot, saved)
    actions = right_click_row(window, str(run))
    keep = next(a for a in actions if a.text().startswith("Keep best 1 + latest 2"))
    shown = next(s for s in window.ws.plan.suggestions if s.title.startswith("Keep best 1")
                 and s.folder == str(run))
    assert str(run / "checkpoint-7000") in shown.paths  # what the file's records say
    confirm_when_asked(window)
    with qtbot.waitSignal(window.cleanup_finished, timeout=30_000):
        keep.trigger()
    assert (run / "checkpoint-7000").is_dir()  # the best on disk stays
    assert (run / "checkpoint-1000").is_dir()  # the file kept it, so nothing decided it goes
    assert not (run / "checkpoint-2000").exists()  # both plans suggest it
    dialog = window.last_dialog
    listed = [dialog.paths.item(i).text() for i in range(dialog.paths.count())]
    assert any("stays: checkpoint-7000 — the best eval_loss 1.82" in t for t in listed)
    assert not any(t.strip().endswith("checkpoint-7000 · step 7000 · eval_loss 1.82")
                   for t in listed)
    assert any(t.endswith("stays: checkpoint-1000 — the saved scan's plan keeps it (the "
                          "records on disk do not)") for t in listed)
    assert ("the records on disk were read again first: 1 item it suggested stays: "
            "checkpoint-7000 — the best eval_loss 1.82.") in dialog.summary.text()
    assert window.status.text().endswith(
        "checkpoint-7000, which the saved scan suggested, stayed: the records on disk do not "
        "suggest it.")


def test_nothing_moves_when_the_disk_suggests_none_of_a_saved_scans_plan(
        qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A saved plan of which the disk suggests nothing any more (augmented copies written
    again since) is refused before any confirmation, saying why."""
    root = generate(tmp_path / "lab")
    saved = save_parquet(root, tmp_path / "lab.parquet")
    monkeypatch.setattr(ConfirmCleanup, "exec", lambda self: pytest.fail("confirmation"))
    window = new_window(qtbot)
    open_in(window, qtbot, saved)
    copies = next(s for s in window.ws.plan.suggestions if s.policy == "augmented-copies")
    for folder in copies.paths:
        os.utime(next(p for p in Path(folder).rglob("*") if p.is_file()))  # written anew
    before = tree_digest(root)
    show_tab(window, window.suggestions)  # and take the suggestion as the tab lists it
    copies = next(s for s in window.ws.plan.suggestions if s.title == copies.title)
    check_only(window, [copies])
    qtbot.mouseClick(window.suggestions.clean_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.status.text().startswith("Nothing was moved"),
                    timeout=30_000)
    assert window.status.text().startswith(
        "Nothing was moved: read again from the disk, the records do not suggest it now "
        "(the saved scan did). ")
    assert f"{copies.paths[0]}: not suggested now" in window.status.toolTip()
    assert tree_digest(root) == before
