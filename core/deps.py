"""Request dependencies every web package shares: the app's settings and database engine.

`create_app` (or a test's app) puts them on `app.state` once; routes declare them as typed
dependencies (`settings: SettingsDep`) instead of reaching into the app state themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.engine import Engine
from sqlmodel import Session

from humantrace.core.settings import Settings


def get_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    settings: Settings = request.app.state.settings
    return settings


def get_engine(request: Request) -> Engine:
    """The app's database engine."""
    engine: Engine = request.app.state.engine
    return engine


def get_db(request: Request) -> Iterator[Session]:
    """A database session for one request."""
    with Session(request.app.state.engine) as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
EngineDep = Annotated[Engine, Depends(get_engine)]
DbDep = Annotated[Session, Depends(get_db)]
