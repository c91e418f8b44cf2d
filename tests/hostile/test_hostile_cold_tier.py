"""The cold tier on shared storage, as a careless or hostile colleague meets it: a tier
folder someone else made (open to all), an archived copy changed in place (same size and
time), and a `cp -a` of a run that copies its links. Nothing they do changes what happens
to the user's files, and bring-back never restores what was not archived."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from cleanup_helpers import tier_at, tree_digest
from workspaces import hf_run, retention_of

from mlspace.act import ARCHIVE, history, run, undo
from mlspace.act import trash as trash_module
from mlspace.act.bring_back import bring_back

pytestmark = pytest.mark.skipif(not trash_module.CAN_RESTORE, reason="freedesktop trash only")


def _files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if not p.is_dir())


def test_a_tier_folder_another_user_made_is_never_trusted(tmp_path: Path, cold: Path) -> None:
    """Another user pre-creates <tier>/<host>/<workspace path> open to everyone, to swap
    what mlspace would put there: nothing is archived into it, nothing moves."""
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    suggestion = retention_of(root)
    tier = tier_at(cold)
    planted = Path(tier.destination(str(root)))
    planted.mkdir(parents=True)
    for folder in [planted, *planted.parents]:
        if folder == cold:
            break
        os.chown(folder, 4242, 4242)
        folder.chmod(0o777)
    result = run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0)
    assert len(result.skipped) == 3
    assert all("another user's (uid 4242)" in o.reason and "nothing was moved" in o.reason
               for o in result.skipped), result.skipped
    assert tree_digest(root) == before
    assert _files_in(cold) == []


def test_bring_back_refuses_an_archived_copy_that_changed(tmp_path: Path, cold: Path) -> None:
    """One byte of the archived copy flipped, size and time kept: bring-back refuses,
    names the file, keeps the link and the copy; restoring the byte lets it through."""
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    suggestion = retention_of(root)
    tier = tier_at(cold)
    assert not run([(suggestion, ARCHIVE)], [str(root)], tier, recent_seconds=0).skipped
    first = suggestion.items[0].path
    weights = Path(tier.destination(first)) / "model.safetensors"
    st = weights.stat()
    data = bytearray(weights.read_bytes())
    data[100] ^= 0xFF
    weights.write_bytes(bytes(data))
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    back = bring_back(first)
    assert back.restored_to is None
    assert "model.safetensors differs from what was archived" in back.reason
    assert "still archived" in back.reason
    assert os.readlink(first) == str(Path(tier.destination(first)))
    assert not [p for p in Path(first).parent.iterdir() if p.name.startswith(".mlspace")]
    data[100] ^= 0xFF
    weights.write_bytes(bytes(data))
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert bring_back(first).restored_to == first
    undo(history()[-1].id)
    assert tree_digest(root) == before


def test_a_copy_of_the_links_never_releases_what_the_originals_point_to(
        tmp_path: Path, cold: Path) -> None:
    """`cp -a run run-copy` copies the links as links; bringing back run-copy's link keeps
    the archived copy, which run's own link still names, and undo still works."""
    root = tmp_path / "ws"
    hf_run(root)
    before = tree_digest(root)
    suggestion = retention_of(root)
    result = run([(suggestion, ARCHIVE)], [str(root)], tier_at(cold), recent_seconds=0)
    assert not result.skipped
    run_dir = root / "outputs" / "run"
    shutil.copytree(run_dir, root / "outputs" / "run-copy", symlinks=True)
    first = Path(suggestion.items[0].path)
    copy_link = root / "outputs" / "run-copy" / first.name
    back = bring_back(str(copy_link), archive_root=str(cold))
    assert back.restored_to == str(copy_link)
    assert f"{first} still links to it" in back.reason
    assert os.path.isdir(os.readlink(first))  # not dangling
    shutil.rmtree(root / "outputs" / "run-copy")
    restored = undo(result.cleanup_id)
    assert all(r.restored_to == r.path for r in restored), restored
    assert tree_digest(root) == before
    assert _files_in(cold) == []


def _plan_ids(root: Path) -> list[str]:
    from layouts import inventory_of

    from mlspace.advise import AdviceSettings, advise
    from mlspace.advise.archive import ArchiveAges, with_archive_suggestions

    inv = inventory_of(root)
    plan = with_archive_suggestions(advise(inv), inv, AdviceSettings(),
                                    ArchiveAges(checkpoints=20))
    return sorted(s.id for s in plan.suggestions)


def test_an_undo_or_a_bring_back_leaves_the_run_as_old_as_it_was(tmp_path: Path,
                                                                 cold: Path) -> None:
    """Putting an item back changed its folder's time, so the run looked freshly written
    and its suggestions vanished (archiving a finished run's kept checkpoints, above all)."""
    root = tmp_path / "ws"
    run_dir = hf_run(root)
    before, planned = os.stat(run_dir).st_mtime_ns, _plan_ids(root)
    assert any(i.startswith("archive-checkpoints") for i in planned)
    from mlspace.act import execute

    cleaned = execute([retention_of(root)], [str(root)], recent_seconds=0)
    assert os.stat(run_dir).st_mtime_ns != before  # the folder changed: true while out
    undo(cleaned.cleanup_id)
    assert os.stat(run_dir).st_mtime_ns == before
    assert _plan_ids(root) == planned
    archived = run([(retention_of(root), ARCHIVE)], [str(root)], tier_at(cold),
                   recent_seconds=0)
    first = archived.done[0].path
    assert bring_back(first).restored_to == first
    undo(archived.cleanup_id)
    assert os.stat(run_dir).st_mtime_ns == before
    assert _plan_ids(root) == planned


@pytest.mark.parametrize("link", ["symlink", "stub"])
def test_archiving_the_kept_checkpoints_keeps_best_and_latest(tmp_path: Path, cold: Path,
                                                              link: str) -> None:
    """After a run's best and latest moved to the cold tier, the pointers left in their
    place are those checkpoints: the next scan names the same best and latest, and neither
    retention nor a second archive run suggests the pointers or the older siblings they
    now stand in front of."""
    from layouts import inventory_of

    from mlspace.advise import AdviceSettings, advise
    from mlspace.advise.archive import ArchiveAges, with_archive_suggestions

    root = tmp_path / "ws"
    hf_run(root)
    before = inventory_of(root).series[0]
    names = {before.latest, before.best}

    def plan():  # noqa: ANN202 - a Plan
        inv = inventory_of(root)
        return inv, with_archive_suggestions(advise(inv), inv, AdviceSettings(),
                                             ArchiveAges(checkpoints=0))

    inv, first = plan()
    archive = next(s for s in first.suggestions if s.policy == "archive-checkpoints")
    retained = {i.path for s in first.suggestions if s.policy == "checkpoint-retention"
                for i in s.items}
    assert {f"checkpoint:{i.path}" for i in archive.items} >= names
    assert not run([(archive, ARCHIVE)], [str(root)], tier_at(cold, link=link),
                   recent_seconds=0).skipped

    inv, second = plan()
    after = inv.series[0]
    pointers = {a.id for a in inv.artifacts if a.archived}
    assert (after.latest, after.best) == (before.latest, before.best)
    assert pointers >= names
    suggested = {i.path for s in second.suggestions for i in s.items}
    assert not suggested & {inv.artifact_by_id[p].path for p in pointers}
    assert {i.path for s in second.suggestions if s.policy == "checkpoint-retention"
            for i in s.items} == retained  # the same older ones as before, no more
    assert not any(s.policy == "archive-checkpoints" for s in second.suggestions)
