"""The rules package imports nothing of ours and its modules import each other without
a circle: every import counts, those inside functions too (only imports for type
checking, under ``if TYPE_CHECKING:``, are left out)."""

from __future__ import annotations

import ast
from pathlib import Path

import rules

PACKAGE = Path(rules.__file__).parent


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[tuple[int, str | None, list[str]]]:
    """(level, module, names) of every import, skipping ``if TYPE_CHECKING:`` bodies."""
    found = []

    def walk(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                walk(child)
            return
        if isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((0, a.name, []) for a in node.names)
        for child in ast.iter_child_nodes(node):
            walk(child)

    walk(tree)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.glob("*.py"):
        targets = set()
        for level, module, names in _imports(ast.parse(path.read_text())):
            if level == 0:
                assert not (module or "").startswith(("board_driver", "firmware_bridge")), (
                    f"rules/{path.name} imports {module}: rules imports nothing of ours"
                )
                if module and module.split(".")[0] == "rules":
                    targets.add(module.split(".")[1] if "." in module else "__init__")
                continue
            if module:
                targets.add(module.split(".")[0])
            else:  # from . import name
                targets.update(name for name in names if name in modules)
        graph[path.stem] = targets - {path.stem}
    return graph


def test_no_module_of_rules_imports_one_that_imports_it_back():
    graph = _graph()
    circles = []

    def visit(module: str, trail: list[str]) -> None:
        for target in sorted(graph.get(module, ())):
            if target in trail:
                circles.append(" -> ".join([*trail[trail.index(target) :], target]))
            elif target != "__init__":
                visit(target, [*trail, target])

    for module in sorted(graph):
        if module != "__init__":
            visit(module, [module])
    assert circles == []


def test_the_walk_sees_imports_inside_functions():
    tree = ast.parse("def f():\n    from .game import Game\n")
    assert _imports(tree) == [(1, "game", ["Game"])]
    guarded = ast.parse("if TYPE_CHECKING:\n    from .game import Game\n")
    assert _imports(guarded) == []
