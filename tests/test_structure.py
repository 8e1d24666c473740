"""The shape of the code: no import circle, no first-party import inside a function, no module
too long to read in one sitting.

The import graph of ``bot/``, ``db/`` and ``rules/`` is read from the source with ``ast`` (nothing
is imported), imports under ``if TYPE_CHECKING:`` included: a circle drawn only for the type
checker is still two modules that cannot be read one after the other. The allow-lists hold what
the code had when this test was written; they may only shrink.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "db", "rules")
MAX_LINES = 900

#: Modules over MAX_LINES today: none (only removals were ever allowed; keep it empty).
LONG_MODULES_ALLOWED: frozenset[str] = frozenset()


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(module: str, node: ast.ImportFrom | ast.Import, is_package: bool) -> list[str]:
    """The first-party modules an import statement names (``from a import b`` names ``a.b``
    when that is a module, else ``a``)."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            target = alias.name
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target:
                names.append(target)
        return names
    base = node.module or ""
    if node.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    for alias in node.names:
        candidate = f"{base}.{alias.name}"
        if candidate in MODULES:
            names.append(candidate)
        elif base in MODULES:
            names.append(base)
    return names


def _imports(module: str, path: Path) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of the module, and whether it sits inside a function."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def walk(
        node: ast.AST, in_function: bool
    ) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            yield from walk(child, inner)

    yield from walk(tree, False)


def _graph() -> tuple[dict[str, set[str]], list[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    in_functions: list[str] = []
    for module, path in MODULES.items():
        is_package = path.name == "__init__.py"
        for node, in_function in _imports(module, path):
            targets = [t for t in _resolve(module, node, is_package) if t != module]
            if in_function:
                where = path.relative_to(ROOT)
                in_functions += [f"{where} -> {target}" for target in targets]
            graph[module].update(targets)
    return graph, in_functions


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


#: Import circles today (each a sorted list of modules): none, and none may come back.
CIRCLES_ALLOWED: list[list[str]] = []

#: First-party imports inside functions ("path -> module"): none, and none may come back.
IN_FUNCTIONS_ALLOWED: frozenset[str] = frozenset()


def test_the_graph_is_read() -> None:
    graph, _ = _graph()
    sqlite = "db.drivers.sqlite"
    assert "bot.service" in graph and sqlite in graph["db.open"] | graph["bot.service"] | {sqlite}
    assert "rules.core.errors" in graph["rules.core.scenario"]


def test_no_new_import_circle() -> None:
    graph, _ = _graph()
    circles = _circles(graph)
    new = [circle for circle in circles if circle not in CIRCLES_ALLOWED]
    assert not new, "import circles:\n" + "\n".join(" -> ".join(c) for c in new)


def test_no_new_first_party_import_inside_a_function() -> None:
    _, in_functions = _graph()
    new = sorted(set(in_functions) - IN_FUNCTIONS_ALLOWED)
    assert not new, "imports inside functions:\n" + "\n".join(new)


def test_no_new_module_over_the_length_a_newcomer_reads_in_one_sitting() -> None:
    long = {
        str(path.relative_to(ROOT))
        for path in MODULES.values()
        if len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES
    }
    new = sorted(long - LONG_MODULES_ALLOWED)
    assert not new, f"over {MAX_LINES} lines: {new}"


def test_the_allow_lists_only_name_what_is_still_there() -> None:
    """When a circle, an import or a long module is gone, its allow-list entry goes too."""
    graph, in_functions = _graph()
    circles = _circles(graph)
    assert [c for c in CIRCLES_ALLOWED if c not in circles] == []
    assert IN_FUNCTIONS_ALLOWED - set(in_functions) == set()
    for name in LONG_MODULES_ALLOWED:
        assert len((ROOT / name).read_text(encoding="utf-8").splitlines()) > MAX_LINES, name
