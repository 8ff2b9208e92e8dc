"""Settings: one pydantic-settings class, every field read from a `HUMANTRACE_` environment variable.

Secrets left unset are generated once and kept in `DATA_DIR/secrets.json`, so a local install needs
no configuration and several processes sharing a data directory agree on them. Outside local use
(`HUMANTRACE_ENVIRONMENT` not `local`) a weak or well-known secret is refused at start-up.
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

MIN_SECRET_LENGTH = 32
KNOWN_WEAK_SECRETS = {"changethis", "changeme", "secret", "password", "default", "humantrace", "dev", "test"}


class InsecureSettings(ValueError):
    """A secret is too weak for use outside a local machine."""


class Settings(BaseSettings):
    """Runtime configuration of humantrace (see the README's settings table)."""

    model_config = SettingsConfigDict(env_prefix="HUMANTRACE_", extra="ignore")

    environment: Literal["local", "staging", "production"] = Field(
        "local",
        description="`local` allows generated secrets on one machine; anything else enforces strong secrets.",
    )
    data_dir: Path = Field(
        Path("data"), description="Directory for the SQLite file, generated secrets and exports."
    )
    database_url: str = Field(
        "",
        description="SQLAlchemy URL; default `sqlite:///DATA_DIR/humantrace.db`. PostgreSQL: `postgresql://user@host/db`.",
    )
    secret_key: str = Field("", description="Signs login links, session cookies, CSRF and recorder tokens.")
    controller_secret: str = Field(
        "", description="Guards the `/control/` environment endpoints; never sent to a page."
    )
    host: str = Field("127.0.0.1", description="Interface `humantrace serve` binds to.")
    port: int = Field(8000, description="Port `humantrace serve` listens on.")
    public_url: str = Field("", description="Base URL printed in login links; default `http://HOST:PORT`.")
    env_public_url: str = Field(
        "",
        description="Base URL of the environments (the website tab), on another host name than the dashboard so no "
        "dashboard cookie reaches a website page; default: PUBLIC_URL with 127.0.0.1 and localhost swapped.",
    )
    login_link_ttl_hours: int = Field(
        72, description="How long a login link stays valid before its first use."
    )
    session_ttl_hours: int = Field(24 * 14, description="How long a login session lasts.")
    cookie_secure: bool = Field(False, description="Mark cookies Secure (set true behind HTTPS).")
    run_monitor: bool = Field(
        True, description="Run the presence monitor (tab-close rollback, time limits) in this process."
    )
    check_schema: bool = Field(
        True, description="Refuse to start when the database schema is not at the latest revision."
    )

    @model_validator(mode="after")
    def _fill_defaults(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{self.data_dir / 'humantrace.db'}"
        self.database_url = normalise_database_url(self.database_url)
        if not self.public_url:
            self.public_url = f"http://{self.host}:{self.port}"
        self.public_url = self.public_url.rstrip("/")
        self.env_public_url = self.env_public_url.rstrip("/")
        return self

    @property
    def dashboard_host(self) -> str:
        """The dashboard's host name (from PUBLIC_URL)."""
        return urlsplit(self.public_url).hostname or ""

    @property
    def env_host(self) -> str:
        """The environments' host name: ENV_PUBLIC_URL's, else the dashboard's with 127.0.0.1 and localhost swapped."""
        return urlsplit(self.env_public_url or other_loopback_host(self.public_url)).hostname or ""

    @property
    def is_local(self) -> bool:
        return self.environment == "local"

    def ensure_secrets(self) -> Settings:
        """Fill unset secrets from `DATA_DIR/secrets.json` (creating it), then enforce strength."""
        if not self.secret_key or not self.controller_secret:
            stored = _load_or_create_secrets(self.data_dir)
            self.secret_key = self.secret_key or stored["secret_key"]
            self.controller_secret = self.controller_secret or stored["controller_secret"]
        check_secret_strength(self)
        return self


_LOOPBACK_SWAP = {"127.0.0.1": "localhost", "localhost": "127.0.0.1"}


def other_loopback_host(url: str) -> str:
    """`url` with 127.0.0.1 and localhost swapped: the same server under another host name.

    Cookies ignore ports, so only another host name keeps the dashboard's cookies out of the
    website tab. Any other host is returned unchanged: a deployment sets HUMANTRACE_ENV_PUBLIC_URL.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if host not in _LOOPBACK_SWAP:
        return url
    netloc = _LOOPBACK_SWAP[host] + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def normalise_database_url(url: str) -> str:
    """Use the psycopg 3 driver for plain `postgresql://` URLs."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def check_secret_strength(settings: Settings) -> None:
    """Refuse short or well-known secrets unless the environment is `local`."""
    if settings.is_local:
        return
    for name in ("secret_key", "controller_secret"):
        value = getattr(settings, name)
        env = f"HUMANTRACE_{name.upper()}"
        if value.lower() in KNOWN_WEAK_SECRETS:
            raise InsecureSettings(
                f"{env} is a well-known default value; set a random value of at least {MIN_SECRET_LENGTH} characters."
            )
        if len(value) < MIN_SECRET_LENGTH:
            raise InsecureSettings(
                f"{env} is {len(value)} characters long; outside local use it needs at least {MIN_SECRET_LENGTH} "
                f"(for example: python -c 'import secrets; print(secrets.token_urlsafe(48))')."
            )
    if settings.secret_key == settings.controller_secret:
        raise InsecureSettings("HUMANTRACE_SECRET_KEY and HUMANTRACE_CONTROLLER_SECRET must differ.")


def _read_secrets(path: Path) -> dict[str, str]:
    values: dict[str, str] = json.loads(path.read_text())
    return values


def _load_or_create_secrets(data_dir: Path) -> dict[str, str]:
    """The secrets in `data_dir/secrets.json`, creating the file when there is none.

    The file appears whole or not at all, so processes starting together all read one set: each
    writes its own candidate to a temporary file in the same folder and hard-links it into place,
    which fails when the file already exists; the loser reads the winner's file.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "secrets.json"
    if path.exists():
        return _read_secrets(path)
    values = {"secret_key": secrets.token_urlsafe(48), "controller_secret": secrets.token_urlsafe(48)}
    fd, temporary = tempfile.mkstemp(prefix=".secrets-", suffix=".json", dir=data_dir)  # mode 0600
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(values, fh)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(temporary, path)  # atomic, and never replaces another process's file
        except FileExistsError:
            return _read_secrets(path)
    finally:
        os.unlink(temporary)
    return values


def get_settings(**overrides: Any) -> Settings:
    """Settings from the environment, with secrets filled in and checked."""
    return Settings(**overrides).ensure_secrets()
