"""The packages' dependency graph is the documented one: a package imports only what the table allows.

The table is docs/architecture.md's (and the README's architecture section). Every `import`,
`from ... import` and `importlib.import_module("...")` with a literal name in a package's source
tree is checked with `ast`, wherever it sits (module level or inside a function), so a lazy import
cannot slip a back-edge in.

Our packages install under one import name, `humantrace` (`humantrace.core` is the folder `core/`):
an import of `core` or `environments` without it, anywhere in the repository (code, tests,
benchmarks, migrations, the docs' scripts and examples), is an error, so no module is ever loaded
twice under two names and a project's own `core/` folder can never stand in for ours.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "humantrace"

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


def our_package(module: str) -> str | None:
    """The package of ours `module` is in (`humantrace.core.db` -> `core`), else None."""
    parts = module.split(".")
    if parts[0] == PACKAGE and len(parts) > 1 and parts[1] in OURS:
        return parts[1]
    return None


def violations(root: Path, allowed: dict[str, frozenset[str] | None] = ALLOWED) -> list[str]:
    """Every import under `root` that breaks the table, as `path:line: a imports b`."""
    found = []
    for package, may in sorted(allowed.items()):
        if may is None or not (root / package).is_dir():
            continue
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, module in imported_modules(tree):
                target = our_package(module)
                if target is not None and target != package and target not in may:
                    found.append(f"{path.relative_to(root)}:{line}: {package} imports {module}")
    return found


# A Python line of a Markdown example or a script inside a string that imports one of ours bare.
_BARE_LINE = re.compile(rf"^\s*(?:from|import)\s+({'|'.join(sorted(OURS))})(?=[.\s]|$)", re.M)


# Files whose strings hold an agent developer's own code, which imports *their* `core`,
# `environments`, ... (the packages that must not shadow ours): their strings are not ours to check.
OTHERS_CODE = frozenset({"tests/test_namespace.py"})


def python_files(root: Path) -> list[Path]:
    """Every Python file of the repository, each once (not through the `humantrace/` links)."""
    skip = {".venv", ".git", "node_modules", "build", "dist"}
    found = []
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).parts
        if skip & set(parts[:-1]) or (parts[0] == PACKAGE and len(parts) > 2):
            continue
        if path.resolve() == Path(__file__).resolve():
            continue  # this file's examples of what is reported
        found.append(path)
    return sorted(found)


def bare_imports(root: Path) -> list[str]:
    """Every import of one of our packages without `humantrace.`, as `path:line: module`:
    statements, `importlib.import_module("...")`, code in strings (`python -c` scripts) and the
    Python examples of the Markdown docs."""
    found = []
    for path in python_files(root):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        for line, module in imported_modules(tree):
            if module.split(".")[0] in OURS:
                found.append(f"{path.relative_to(root)}:{line}: {module}")
        if path.relative_to(root).as_posix() in OTHERS_CODE:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "import" in node.value:
                for match in _BARE_LINE.finditer(node.value):
                    found.append(
                        f"{path.relative_to(root)}:{node.lineno}: {match.group(0).strip()} (in a string)"
                    )
    for path in sorted(root.glob("*.md")) + sorted((root / "docs").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in _BARE_LINE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(root)}:{line}: {match.group(0).strip()}")
    return found


def test_packages_import_only_what_the_rules_allow():
    broken = violations(ROOT)
    assert not broken, "import rules broken (see docs/architecture.md):\n" + "\n".join(broken)


def test_every_top_level_package_has_a_rule():
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "benchmarks", PACKAGE}
    assert packages <= OURS, f"add {sorted(packages - OURS)} to the import-rule table"


def test_the_one_import_package_links_every_top_level_package():
    """`humantrace/<package>` is the folder `<package>/` (a relative link), for each of ours."""
    linked = {p.name for p in (ROOT / PACKAGE).iterdir() if p.is_symlink()}
    assert linked == OURS
    for name in OURS:
        link = ROOT / PACKAGE / name
        assert Path(link.readlink()) == Path("..") / name, f"{link} -> {link.readlink()}"


def test_nothing_imports_our_packages_without_the_humantrace_prefix():
    found = bare_imports(ROOT)
    assert not found, "import these as humantrace.<package>:\n" + "\n".join(found)


def test_a_bare_import_is_reported(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text(
        "import humantrace.core.db\nfrom humantrace.environments import catalog\n"
        "from core import settings\nSCRIPT = 'import sys\\nfrom environments import mount\\n'\n"
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text(
        "```python\nfrom humantrace.cleaning import clean\nimport exports.bundle\n```\n"
    )
    assert bare_imports(tmp_path) == [
        "tests/test_x.py:3: core",
        "tests/test_x.py:4: from environments (in a string)",
        "docs/x.md:3: import exports",
    ]


@pytest.mark.parametrize(
    "source",
    [
        "import humantrace.dashboard.app\n",
        "def later():\n    from humantrace.environments import catalog\n",
        "import importlib\nimportlib.import_module('humantrace.recorder.models')\n",
    ],
)
def test_a_forbidden_import_is_reported(tmp_path, source):
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "__init__.py").write_text("")
    (tmp_path / "core" / "bad.py").write_text(source)
    (tmp_path / "core" / "fine.py").write_text(
        "import os\nfrom humantrace.core import bad\nfrom . import bad\n"
    )
    assert [v.split(":")[0] for v in violations(tmp_path)] == ["core/bad.py"]
