"""The house's floors: no import circles between files, arrows that only point down, Qt in ui.

Every module under ``mlspace/`` is parsed (never imported) and each import it makes counts:
at module level, inside a function, under ``TYPE_CHECKING`` (a type is a dependency too).
Relative imports are resolved, and ``from package import name`` points at the submodule
``package.name`` when there is one, else at the package's ``__init__``.

The floors, lowest first. A module may import its own floor and the floors below it, never
one above. Within a package (or among the helper modules of one floor) anything goes, as
long as no circle forms.

====  =====================================================================================
rank  modules
====  =====================================================================================
0     ``mlspace`` itself (the version) and the helpers every layer may use: ``safe_read``
      (the one bounded reader), ``trust`` and ``config`` (mlspace's own files and
      settings), ``fmt`` and ``paths`` (words and names), ``disks`` (what a filesystem
      holds and frees), ``assets``, ``desktop``, ``demo``, ``discover``, ``treemap``
      (the layout arithmetic) and ``written`` (files written whole where a user named them)
1     ``scan`` (the walk, the Snapshot) and ``owners`` (who owns what a Snapshot holds)
2     ``classify`` (the Inventory), with ``ages`` and ``filtering`` that read one
3     ``index`` (saved scans: a Snapshot and its Inventory on disk, history, diff)
4     ``advise`` (Suggestions and Plans)
5     ``act`` (the executor, journal, trash, tier, undo)
6     ``guard`` (watches the disks, forecasts, frees within the policy: it acts through
      ``act``, and the disk line of reports and the app shows what it found)
7     ``report`` (what an Inventory, Plans and the journal say, rendered) and ``tables``
      (the app's derived tables, Qt-free)
8     ``ui`` (the only floor that imports Qt)
9     ``cli`` (the commands, and the entry that starts the app)
10    ``__main__``
====  =====================================================================================
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mlspace"
QT_MODULES = ("PySide6", "pyqtgraph", "shiboken6")

RANKS = {
    "mlspace": 0, "safe_read": 0, "trust": 0, "config": 0, "fmt": 0, "paths": 0,
    "disks": 0, "assets": 0, "desktop": 0, "demo": 0, "discover": 0, "treemap": 0,
    "written": 0, "lazy": 0,
    "scan": 1, "owners": 1,
    "classify": 2, "ages": 2, "filtering": 2,
    "index": 3,
    "advise": 4,
    "act": 5,
    "guard": 6,
    "report": 7, "tables": 7,
    "ui": 8,
    "cli": 9,
    "__main__": 10,
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    for native in PACKAGE.rglob("*.c"):  # a C extension imports nothing of mlspace
        modules.setdefault(_module_name(native), native)
    return modules


MODULES = _modules()


def _known(name: str) -> str | None:
    """The closest module of mlspace that ``name`` lives in (None: not mlspace's)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        package = package[:len(package) - node.level + 1]
        base = ".".join([*package, base] if base else package)
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
            for alias in node.names]


def _imports(module: str, path: Path) -> tuple[set[str], set[str]]:
    """(mlspace modules ``module`` imports, top-level names of everything it imports)."""
    inside: set[str] = set()
    tops: set[str] = set()
    if path.suffix != ".py":
        return inside, tops
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name in _targets(module, path, node):
                tops.add(name.split(".")[0])
                target = _known(name)
                if target is not None and target != module:
                    inside.add(target)
    return inside, tops


@functools.cache
def _graph() -> dict[str, tuple[set[str], set[str]]]:
    """Each module's imports (parsed once, when a test first asks: not at collection, which
    every test process does)."""
    return {module: _imports(module, path) for module, path in MODULES.items()}


def _floor(module: str) -> str:
    """The rank table's key for a module: its package under mlspace, or itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mlspace"


def _cycles() -> list[list[str]]:
    """Each circle of imports (Tarjan's strongly connected components of two or more)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # iterative: no recursion limit on deep chains
        work = [(start, iter(sorted(_graph()[start][0])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(_graph()[target][0]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for module in sorted(_graph()):
        if module not in index:
            visit(module)
    return found


def test_the_graph_sees_the_imports_that_matter() -> None:
    """The parser finds what a reader sees: function-level, TYPE_CHECKING and ``from x
    import submodule`` imports all become arrows (else the tests below would pass on
    nothing)."""
    assert len(MODULES) > 100
    assert "mlspace.scan" in _graph()["mlspace.owners"][0]
    assert "mlspace.ui.main_window" in _graph()["mlspace.ui.app"][0]
    assert "mlspace.ui.app" in _graph()["mlspace.cli.app"][0]  # inside run_gui
    assert "mlspace.scan._walker" in _graph()["mlspace.scan.native"][0]  # from pkg import sub
    assert "PySide6" in _graph()["mlspace.ui.main_window"][1]


def test_no_file_imports_another_that_imports_it_back() -> None:
    cycles = _cycles()
    assert cycles == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_every_module_has_a_floor() -> None:
    unranked = sorted({_floor(module) for module in MODULES} - set(RANKS))
    assert unranked == [], f"give these a rank in {__name__}.RANKS: {unranked}"


def test_arrows_only_point_down() -> None:
    upward = sorted(
        f"{module} (floor {RANKS[_floor(module)]}) imports {target} "
        f"(floor {RANKS[_floor(target)]})"
        for module, (targets, _) in _graph().items()
        for target in targets
        if RANKS.get(_floor(target), -1) > RANKS.get(_floor(module), -1)
    )
    assert upward == [], "\n".join(upward)


def test_only_the_ui_imports_qt() -> None:
    offenders = sorted(module for module, (_, tops) in _graph().items()
                       if _floor(module) != "ui" and tops & set(QT_MODULES))
    assert offenders == []
