"""Settings of the agent runner, read from `HUMANTRACE_AGENTS_*` environment variables.

They live here rather than in the web app's settings: the runner is a client of a humantrace
server (its own, or a running one), not part of it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_STUDY_SEED = 42


class AgentSettings(BaseSettings):
    """Where the tasks run and which browser drives them."""

    model_config = SettingsConfigDict(env_prefix="HUMANTRACE_AGENTS_", extra="ignore")

    # Empty: every worker starts its own humantrace server on SQLite in a temporary data directory.
    server_url: str = ""
    # The running server's controller secret (needed with server_url).
    controller_secret: str = ""
    # The env seed of every task-condition: the study seed the humans had.
    seed: int = DEFAULT_STUDY_SEED
    chromium: str = "/usr/bin/chromium"
    # Playwright's browsers folder in which the expected Chromium build points at `chromium`.
    browsers_path: Path = Path.home() / ".cache" / "humantrace" / "pw-browsers"
    headless: bool = True
