"""Settings: generated secrets locally, weak secrets refused elsewhere."""

import json
from pathlib import Path

import pytest

from humantrace.core.settings import InsecureSettings, Settings


def test_unset_secrets_are_generated_once_and_kept(tmp_path):
    first = Settings(data_dir=tmp_path).ensure_secrets()
    second = Settings(data_dir=tmp_path).ensure_secrets()
    assert len(first.secret_key) >= 32 and len(first.controller_secret) >= 32
    assert first.secret_key != first.controller_secret
    assert (second.secret_key, second.controller_secret) == (first.secret_key, first.controller_secret)
    assert (tmp_path / "secrets.json").stat().st_mode & 0o077 == 0  # readable by the owner only


def test_default_database_is_a_sqlite_file_in_the_data_dir(tmp_path):
    settings = Settings(data_dir=tmp_path / "d")
    assert settings.database_url == f"sqlite:///{tmp_path / 'd' / 'humantrace.db'}"


def test_postgres_urls_use_psycopg3():
    assert Settings(database_url="postgresql://u@h/db").database_url == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize("weak", ["changethis", "secret", "short-but-random-x7"])
def test_weak_secret_refused_outside_local_use(tmp_path, weak):
    settings = Settings(
        data_dir=tmp_path, environment="production", secret_key=weak, controller_secret="c" * 40
    )
    with pytest.raises(InsecureSettings, match="HUMANTRACE_SECRET_KEY"):
        settings.ensure_secrets()


def test_weak_secret_allowed_for_local_use(tmp_path):
    Settings(
        data_dir=tmp_path, environment="local", secret_key="changethis", controller_secret="x"
    ).ensure_secrets()


def test_identical_secrets_refused_outside_local_use(tmp_path):
    value = "v" * 40
    with pytest.raises(InsecureSettings, match="must differ"):
        Settings(
            data_dir=tmp_path, environment="production", secret_key=value, controller_secret=value
        ).ensure_secrets()


def test_env_variables_use_the_humantrace_prefix(tmp_path, monkeypatch):
    monkeypatch.setenv("HUMANTRACE_PORT", "9123")
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path))
    settings = Settings()
    assert settings.port == 9123 and settings.public_url == "http://127.0.0.1:9123"


def test_cli_refuses_weak_secrets_outside_local_use(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from humantrace.dashboard.cli import app

    monkeypatch.setenv("HUMANTRACE_ENVIRONMENT", "production")
    monkeypatch.setenv("HUMANTRACE_SECRET_KEY", "changethis")
    monkeypatch.setenv("HUMANTRACE_DATA_DIR", str(tmp_path))
    result = CliRunner().invoke(app, ["db", "current"])
    assert result.exit_code == 2
    assert "Refusing to start" in result.output and "well-known default" in result.output


def _create_secrets_at_once(barrier, data_dirs: list[str], queue) -> None:
    from pathlib import Path

    from humantrace.core.settings import _load_or_create_secrets

    for data_dir in data_dirs:
        barrier.wait()  # every process starts on this folder at the same moment
        try:
            queue.put((data_dir, "ok", _load_or_create_secrets(Path(data_dir))))
        except Exception as exc:  # what a crashing process saw, reported to the test
            queue.put((data_dir, "error", f"{type(exc).__name__}: {exc}"))


def test_processes_creating_secrets_json_at_once_all_read_the_same_secrets(tmp_path):
    """secrets.json appears whole or not at all: a process that loses the race reads the winner's
    secrets (one of three starting together crashed with JSONDecodeError on a half-written file)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    processes = 4
    data_dirs = [str(tmp_path / f"data{n}") for n in range(200)]
    queue = context.Queue()
    barrier = context.Barrier(processes)
    workers = [
        context.Process(target=_create_secrets_at_once, args=(barrier, data_dirs, queue))
        for _ in range(processes)
    ]
    for worker in workers:
        worker.start()
    results = [queue.get(timeout=300) for _ in range(processes * len(data_dirs))]
    for worker in workers:
        worker.join(timeout=60)
    errors = [r for r in results if r[1] != "ok"]
    assert not errors, f"{len(errors)} of {len(results)} failed, e.g. {errors[0]}"
    for data_dir in map(Path, data_dirs):
        stored = json.loads((data_dir / "secrets.json").read_text())
        assert all(values == stored for d, _, values in results if d == str(data_dir))
        assert sorted(p.name for p in data_dir.iterdir()) == ["secrets.json"], "a temporary file was left"
        assert (data_dir / "secrets.json").stat().st_mode & 0o777 == 0o600
