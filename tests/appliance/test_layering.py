"""The rooms of appliance/ depend on each other in one direction only (docs/LAYOUT.md).

Every import is counted, also those inside functions: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "appliance"

#: Which rooms each room may import. ``config`` and ``ui_config`` (the typed configuration)
#: may be imported by every room; the composition root (``cli``, ``daemon``) by none.
ALLOWED = {
    "common": set(),
    "db": {"common"},
    "bank": {"common", "db"},
    "teachers": {"common", "db"},
    "asklog": {"common", "db", "bank"},
    "inference": {"common", "db", "bank"},
    "wording": {"common"},
    "ocr": {"common", "inference", "wording"},
    "ask": {"common", "db", "bank", "asklog", "inference", "wording", "ocr"},
    "serve": {"common", "db", "bank", "asklog", "inference", "wording", "ocr", "ask", "teachers"},
    "ops": {"common", "db"},
    "bench": {"common", "db", "bank", "asklog", "inference", "wording", "ocr", "ask", "serve"},
}
BASE = {"config", "ui_config", "__init__"}
ROOT = {"cli", "daemon"}
#: The composition root proper: the one module that imports ``ui`` (and builds the daemon).
UI_IMPORTER = "appliance.daemon"
#: What the configuration itself may import: the settings types of the rooms it configures.
BASE_MAY_IMPORT = {"appliance.ocr.settings", "appliance.ocr.errors", "appliance.ocr.image",
                   "appliance.config", "appliance.ui_config"}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, typing_only: bool = True) -> set[str]:
    """Dotted names of the appliance and ui modules a file imports, at any depth (with
    ``typing_only`` False, not those under ``if TYPE_CHECKING:``, which never run)."""
    found = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not typing_only:
        tree.body = [n for n in tree.body if not _type_checking_block(n)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {n for n in found if n.split(".")[0] in ("appliance", "ui") and resolves(n)}


def _type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None) if isinstance(node, ast.If) else None
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def resolves(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def room_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "ui":
        return "ui"
    return parts[1] if len(parts) > 1 else "__init__"


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) - {module_name(p)} for p in PACKAGE.rglob("*.py")}


def test_every_module_is_in_a_known_room():
    unknown = {m for m in graph() if room_of(m) not in set(ALLOWED) | BASE | ROOT}
    assert not unknown, f"modules outside any room of the layering rule: {sorted(unknown)}"


def test_rooms_import_only_the_rooms_below_them():
    broken = []
    for module, deps in graph().items():
        room = room_of(module)
        if room in ROOT:
            continue
        for dep in deps:
            dep_room = room_of(dep)
            if room in BASE:
                ok = dep in BASE_MAY_IMPORT or dep == "appliance"
            else:
                ok = dep_room in ALLOWED[room] | BASE | {room}
            if not ok:
                broken.append(f"{module} imports {dep}")
    assert not broken, "imports against the layering rule:\n" + "\n".join(sorted(broken))


def test_only_the_composition_root_imports_ui():
    offenders = sorted(f"{m} imports {d}" for m, deps in graph().items() if m != UI_IMPORTER
                       for d in deps if d.startswith("ui"))
    assert not offenders, offenders


def test_no_import_cycle_between_rooms():
    edges = defaultdict(set)
    for module, deps in graph().items():
        for dep in deps:
            a, b = room_of(module), room_of(dep)
            if a != b and b not in BASE and b != "ui":
                edges[a].add(b)
    cycle = find_cycle(edges)
    assert cycle is None, " -> ".join(cycle or [])


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path + [node, nxt]
            if nxt not in state and (found := visit(nxt, path + [node])):
                return found
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start, [])):
            return found
    return None


def module_graph() -> dict[str, set[str]]:
    """Module → the appliance and ui modules it imports when it runs (appliance/ and ui/)."""
    files = list(PACKAGE.rglob("*.py")) + list((REPO / "ui").rglob("*.py"))
    return {module_name(p): imports_of(p, typing_only=False) - {module_name(p)} for p in files}


def test_no_import_cycle_between_modules():
    """A cycle of modules (also through function-level imports) is a knot that only import
    order keeps working: none may come back."""
    cycle = find_cycle(module_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_module_walk_sees_a_new_cycle():
    """The walk on a copy of two real modules made to import each other finds the cycle."""
    graph_now = module_graph()
    graph_now["appliance.common.batcher"] = graph_now["appliance.common.batcher"] | {"appliance.daemon"}
    assert find_cycle(graph_now) is not None


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None


@pytest.mark.parametrize("room", sorted(ALLOWED))
def test_no_room_holds_more_than_about_a_quarter_of_the_lines(room):
    def lines(paths):
        return sum(len(p.read_text(encoding="utf-8").splitlines()) for p in paths)

    total = lines(PACKAGE.rglob("*.py"))
    share = lines((PACKAGE / room).rglob("*.py")) / total
    assert share <= 0.27, f"{room} holds {share:.0%} of appliance/"
