"""The humantrace CLI: help on every command, clear errors for bad account requests."""

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from humantrace.dashboard.cli import app

runner = CliRunner()


def all_command_paths():
    def walk(command, prefix):
        yield prefix
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, prefix + [name])

    return list(walk(get_command(app), []))


@pytest.mark.parametrize("path", all_command_paths(), ids=lambda p: " ".join(p) or "humantrace")
def test_every_command_has_help(path):
    result = runner.invoke(app, path + ["--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    command = get_command(app)
    for name in path:
        command = command.commands[name]
    assert (command.help or "").strip(), f"`humantrace {' '.join(path)}` has no help text"


@pytest.fixture
def cli_env(monkeypatch, tmp_path, migrated_url):
    monkeypatch.setenv("HUMANTRACE_DATABASE_URL", migrated_url)
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path / "data"))


def test_annotators_add_list_and_link(cli_env):
    assert runner.invoke(app, ["study", "create", "Pilot"]).exit_code == 0
    assert runner.invoke(app, ["annotators", "add", "A1", "--designed", "shop"]).exit_code == 0
    assert runner.invoke(app, ["annotators", "add", "L1", "--role", "lead"]).exit_code == 0
    listing = runner.invoke(app, ["annotators", "list"])
    assert "A1" in listing.output and "shop" in listing.output and "lead" in listing.output
    link = runner.invoke(app, ["annotators", "link", "A1"])
    assert link.exit_code == 0 and "/login/" in link.output


def test_annotators_add_rejects_a_duplicate_code(cli_env):
    runner.invoke(app, ["study", "create", "Pilot"])
    runner.invoke(app, ["annotators", "add", "A1"])
    result = runner.invoke(app, ["annotators", "add", "a1"])
    assert result.exit_code == 1
    assert "already in this study" in result.output


def test_annotators_add_rejects_an_unknown_role(cli_env):
    runner.invoke(app, ["study", "create", "Pilot"])
    result = runner.invoke(app, ["annotators", "add", "A2", "--role", "admin"])
    assert result.exit_code == 1
    assert "unknown role 'admin'" in result.output and "annotator, lead" in result.output


def test_link_for_unknown_person_is_a_clear_error(cli_env):
    result = runner.invoke(app, ["annotators", "link", "Z9"])
    assert result.exit_code == 1 and "no annotator with code Z9" in result.output


def test_commands_on_an_outdated_database_name_the_upgrade(monkeypatch, tmp_path):
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path))
    result = runner.invoke(app, ["annotators", "list"])
    assert result.exit_code == 1 and "humantrace db upgrade" in result.output


def test_db_current_reports_latest(cli_env):
    result = runner.invoke(app, ["db", "current"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split()[-1] == lines[1].split()[-1]
