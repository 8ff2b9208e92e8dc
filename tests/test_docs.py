"""Documentation cannot drift: every setting and every CLI command appears in the README or docs/."""

from pathlib import Path

import pytest
from typer.main import get_command

from humantrace.agentruns.settings import AgentSettings
from humantrace.core.settings import Settings
from humantrace.dashboard.cli import app

ROOT = Path(__file__).resolve().parent.parent


def documentation() -> str:
    texts = [(ROOT / "README.md").read_text()]
    texts += [p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))]
    return "\n".join(texts)


@pytest.mark.parametrize("field", sorted(Settings.model_fields))
def test_every_setting_is_documented(field):
    assert f"HUMANTRACE_{field.upper()}" in documentation()


@pytest.mark.parametrize("field", sorted(AgentSettings.model_fields))
def test_every_agent_runner_setting_is_documented(field):
    assert f"HUMANTRACE_AGENTS_{field.upper()}" in documentation()


def leaf_commands():
    def walk(command, prefix):
        subs = getattr(command, "commands", None)
        if not subs:
            yield " ".join(prefix)
            return
        for name, sub in subs.items():
            yield from walk(sub, prefix + [name])

    return list(walk(get_command(app), []))


@pytest.mark.parametrize("command", leaf_commands())
def test_every_cli_command_is_documented(command):
    assert f"humantrace {command}" in documentation(), f"`humantrace {command}` is not in the README or docs/"
