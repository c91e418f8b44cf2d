"""Every link of the guide (README.md and docs/*.md) leads somewhere: a file of the repository,
and the heading its ``#anchor`` names, by GitHub's anchor rules. Nothing points outside the
repository but web addresses, and no page is left out of the index."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest
from docs_pages import REPO, anchors, links, name, pages, slug

WEB = ("http://", "https://")


def _broken(page: Path) -> list[str]:
    out = []
    for link in links(page):
        target = link.target
        if target.startswith(WEB):
            continue
        where = f"{name(page)}:{link.line}: {target}"
        path_part, _, anchor = target.partition("#")
        if path_part.startswith("/") or ":" in path_part:
            out.append(f"{where} (not a path inside the repository)")
            continue
        resolved = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not resolved.is_relative_to(REPO):
            out.append(f"{where} (outside the repository)")
        elif not resolved.exists():
            out.append(f"{where} (no such file)")
        elif anchor and (resolved.suffix != ".md" or anchor not in anchors(resolved)):
            out.append(f"{where} (no heading with that anchor)")
    return out


@pytest.mark.parametrize("page", pages(), ids=name)
def test_every_link_resolves(page: Path) -> None:
    assert _broken(page) == []


@pytest.mark.parametrize("page", pages(), ids=name)
def test_no_page_points_to_the_shared_notes(page: Path) -> None:
    """The developers' shared notes are not the users': no page names them, linked or not."""
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text


def test_the_checker_sees_links_and_anchors() -> None:
    """The checks above hold something: the README links into docs/, with anchors, and the
    slug rule gives GitHub's anchors for headings with code and punctuation."""
    readme = REPO / "README.md"
    targets = [link.target for link in links(readme)]
    assert sum(t.startswith("docs/") for t in targets) >= 10
    assert any("#" in t for t in targets)
    assert slug("Saved scans, history and growth") == "saved-scans-history-and-growth"
    assert slug("`mlspace purge`: freeing the trash") == "mlspace-purge-freeing-the-trash"
    assert slug("Space by owner (more than one)") == "space-by-owner-more-than-one"
    assert slug("A [linked](x.md) heading_1") == "a-linked-heading_1"


def test_the_index_lists_every_page() -> None:
    index = REPO / "docs" / "README.md"
    listed = {(index.parent / link.target.partition("#")[0]).resolve()
              for link in links(index) if not link.target.startswith(WEB)}
    missing = [name(p) for p in pages() if p.parent == index.parent and p != index
               and p.resolve() not in listed]
    assert missing == []
