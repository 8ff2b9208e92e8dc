"""Settings: generated secrets locally, weak secrets refused elsewhere."""

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
