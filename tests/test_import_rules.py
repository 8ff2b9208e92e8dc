"""The packages' dependency graph is the documented one: a package imports only what the table allows.

The table is DESIGN.md's import rules (and the README's architecture section). Every `import`,
`from ... import` and `importlib.import_module("...")` with a literal name in a package's source
tree is checked with `ast`, wherever it sits (module level or inside a function), so a lazy import
cannot slip a back-edge in.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# package -> the other humantrace packages it may import (None: any of them).
ALLOWED: dict[str, frozenset[str] | None] = {
    "core": frozenset(),
    "environments": frozenset({"core"}),
    "recorder": frozenset({"core"}),
    "cleaning": frozenset({"core"}),
    "exports": frozenset({"core"}),
    "annotators": frozenset({"core"}),
    "agentruns": frozenset({"core", "environments", "recorder", "cleaning", "exports"}),
    # Alembic's environment needs the complete table registry, which the web app assembles.
    "migrations": frozenset({"core", "dashboard"}),
    "dashboard": None,
}
OURS = frozenset(ALLOWED)


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, absolute module name) of every absolute import in `tree`, lazy ones included."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def violations(root: Path, allowed: dict[str, frozenset[str] | None] = ALLOWED) -> list[str]:
    """Every import under `root` that breaks the table, as `path:line: a imports b`."""
    ours = frozenset(allowed)
    found = []
    for package, may in sorted(allowed.items()):
        if may is None or not (root / package).is_dir():
            continue
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, module in imported_modules(tree):
                target = module.split(".")[0]
                if target in ours and target != package and target not in may:
                    found.append(f"{path.relative_to(root)}:{line}: {package} imports {module}")
    return found


def test_packages_import_only_what_the_rules_allow():
    broken = violations(ROOT)
    assert not broken, "import rules broken (see DESIGN.md / README architecture):\n" + "\n".join(broken)


def test_every_top_level_package_has_a_rule():
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "benchmarks"}
    assert packages <= OURS, f"add {sorted(packages - OURS)} to the import-rule table"


@pytest.mark.parametrize(
    "source",
    [
        "import dashboard.app\n",
        "def later():\n    from environments import catalog\n",
        "import importlib\nimportlib.import_module('recorder.models')\n",
    ],
)
def test_a_forbidden_import_is_reported(tmp_path, source):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "__init__.py").write_text("")
    (tmp_path / "core" / "bad.py").write_text(source)
    (tmp_path / "core" / "fine.py").write_text("import os\nfrom core import bad\nfrom . import bad\n")
    assert [v.split(":")[0] for v in violations(tmp_path)] == ["core/bad.py"]
