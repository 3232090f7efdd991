"""The rules of the code's shape (ARCHITECTURE.md): small modules and functions, no import
cycle (lazy and TYPE_CHECKING imports included), `evals` built on public `scorers` only
(the package, `scorers.lowlevel`, `scorers.ragas`) and the shared `scorers._internal`, and
production code that never imports `evals.testing`."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scorers", "evals")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def modules() -> dict[str, Path]:
    """Every module of the two packages by dotted name (packages as their ``__init__``)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, str | None]]:
    """(imported module, imported name or None) for every import anywhere in the module."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                yield target, alias.name


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the two packages it imports (a ``from package import
    submodule`` counts as importing the submodule)."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target, imported in _imports(name, path, known):
            if imported and f"{target}.{imported}" in known:
                graph[name].add(f"{target}.{imported}")
            elif target in known:
                graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def long_functions() -> list[str]:
    """Functions whose body (docstring aside) is over `MAX_FUNCTION_LINES` lines."""
    found = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = node.body
                if (
                    body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)
                    and len(body) > 1
                ):
                    body = body[1:]
                lines = (node.end_lineno or 0) - body[0].lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append(f"{name}.{node.name} ({lines})")
    return found


def bridge_names() -> set[str]:
    """Names `evals` takes from private `scorers` modules (``scorers._x``)."""
    known = modules()
    names = set()
    for name, path in known.items():
        if not name.startswith("evals"):
            continue
        for target, imported in _imports(name, path, known):
            parts = target.split(".")
            if parts[0] == "scorers" and any(p.startswith("_") for p in parts[1:]):
                names.add(f"{target}.{imported}" if imported else target)
    return names


def test_no_module_is_over_400_lines() -> None:
    big = {
        name: n
        for name, path in modules().items()
        if (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert not big, f"split these by concept: {big}"


def test_no_function_body_is_over_60_lines() -> None:
    assert not long_functions()


def test_no_import_cycle() -> None:
    assert not cycles(import_graph())


def test_scorers_never_imports_evals() -> None:
    graph = import_graph()
    leaks = {m: sorted(t for t in ts if t.startswith("evals")) for m, ts in graph.items()}
    assert not {m: ts for m, ts in leaks.items() if m.startswith("scorers") and ts}


def test_evals_imports_no_private_scorers_module_but_the_shared_one() -> None:
    """`evals` takes from `scorers` its public names and `scorers._internal` (the helpers
    both packages share, as pydantic's share ``_internal``), nothing else private."""
    names = bridge_names()
    assert names and {n for n in names if not n.startswith("scorers._internal.")} == set()


def test_lowlevel_is_the_engine_seam_and_its_old_names_warn() -> None:
    import warnings

    import scorers._internal
    import scorers.lowlevel

    assert len(scorers.lowlevel.__all__) <= 17
    assert set(scorers.lowlevel.__all__) <= set(scorers._internal.__all__)
    for old in ("MEASURES", "run_sync", "write_atomically", "registry"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = getattr(scorers.lowlevel, old)
        assert caught and caught[0].category is DeprecationWarning
        assert found is getattr(scorers._internal, "TREC_MEASURES" if old == "MEASURES" else old)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        scorers.lowlevel.nothing  # noqa: B018


def test_every_lowlevel_name_is_documented() -> None:
    import scorers.lowlevel

    text = (ROOT / "docs" / "lowlevel.md").read_text()
    missing = [name for name in scorers.lowlevel.__all__ if f"`{name}" not in text]
    assert not missing


def test_production_code_never_imports_evals_testing() -> None:
    graph = import_graph()
    users = {
        m
        for m, targets in graph.items()
        if not m.startswith("evals.testing") and any(t.startswith("evals.testing") for t in targets)
    }
    assert not users


def test_architecture_names_every_module() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    listed = set(re.findall(r"^- `((?:scorers|evals)/[\w/]+\.py)`", text, re.M))
    present = {path.relative_to(ROOT).as_posix() for path in modules().values()}
    assert present - listed == set(), "add these to ARCHITECTURE.md's module list"
    assert listed - present == set(), "these are gone: remove them from the list"


def floors(graph: dict[str, set[str]], package: str = "evals") -> dict[str, int]:
    """Each module of ``package`` on the floor above the highest it imports (lazy imports
    counted); package ``__init__``s, which re-export lazily, sit at 0 and are not counted."""
    known = modules()
    inits = {name for name, path in known.items() if path.name == "__init__.py"}
    found: dict[str, int] = {}

    def floor(name: str) -> int:
        if name not in found:
            below = [
                floor(d)
                for d in graph[name]
                if d.split(".")[0] == package and d not in inits and d != name
            ]
            found[name] = 0 if name in inits else 1 + max(below, default=-1)
        return found[name]

    for name in graph:
        if name.split(".")[0] == package:
            floor(name)
    return found


def floor_table() -> str:
    """ARCHITECTURE.md's floor table of `evals`, from the import graph."""
    by_floor: dict[int, list[str]] = {}
    for name, level in floors(import_graph()).items():
        by_floor.setdefault(level, []).append(name.removeprefix("evals.") or name)
    return "\n".join(
        f"{level:>2}  {', '.join(sorted(by_floor[level]))}" for level in sorted(by_floor)
    )


def test_architecture_floor_table_is_the_import_graphs() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    table = floor_table()
    count = len(table.splitlines())
    assert f"```\n{table}\n```" in text, f"replace ARCHITECTURE.md's floor table with:\n{table}"
    assert f"its modules sit on {count}\nfloors" in text or f"sit on {count} floors" in text
