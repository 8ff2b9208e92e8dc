"""A recorder-only server: ingestion, the script, and optionally a folder of pages to record on.

Used by the recorder's own tests and benchmarks, and for standalone recordings without the
dashboard. The full platform mounts `recorder.router` inside `dashboard.create_app` instead.

    HUMANTRACE_RECORDER_DATABASE_URL=sqlite:///rec.db HUMANTRACE_RECORDER_SECRET=... \\
        python -m uvicorn recorder.standalone:app_from_env --factory --no-access-log \\
        --ws-max-size 262144 --ws-per-message-deflate false
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import SimpleNamespace

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from sqlmodel import SQLModel, create_engine

from humantrace.core.sqlite import tune_sqlite
from humantrace.recorder.gc_tuning import tune_gc_for_serving
from humantrace.recorder.inject import RecorderInjectionMiddleware
from humantrace.recorder.models import RECORDER_TABLES
from humantrace.recorder.privacy import ForgetClientAddressMiddleware, RedactTokensFilter
from humantrace.recorder.router import router


def create_app(*, database_url: str, secret_key: str, pages_dir: Path | None = None) -> FastAPI:
    """A FastAPI app serving the recorder routes (and `pages_dir` under `/env/`, recorder injected)."""
    if not secret_key:
        raise ValueError("secret_key must not be empty")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = create_engine(database_url)
        tune_sqlite(engine)
        SQLModel.metadata.create_all(engine, tables=list(RECORDER_TABLES))
        app.state.engine = engine
        redact = RedactTokensFilter()
        uvicorn_log = logging.getLogger("uvicorn.error")
        uvicorn_log.addFilter(redact)
        try:
            yield
        finally:
            uvicorn_log.removeFilter(redact)
            writer = getattr(app.state, "recorder_writer", None)
            if writer is not None:
                writer.close()
            engine.dispose()

    app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = SimpleNamespace(secret_key=secret_key, database_url=database_url)
    app.include_router(router)
    if pages_dir is not None:
        app.mount("/env", StaticFiles(directory=pages_dir, html=True), name="env")
    app.add_middleware(RecorderInjectionMiddleware)
    # Added last, so it runs first: no later layer (or uvicorn's log lines) sees the address.
    app.add_middleware(ForgetClientAddressMiddleware)
    return app


def app_from_env() -> FastAPI:
    """Factory for `uvicorn --factory`, configured by HUMANTRACE_RECORDER_* environment variables."""
    database_url = os.environ.get("HUMANTRACE_RECORDER_DATABASE_URL", "sqlite:///recorder.db")
    secret_key = os.environ.get("HUMANTRACE_RECORDER_SECRET", "")
    pages = os.environ.get("HUMANTRACE_RECORDER_PAGES")
    app = create_app(
        database_url=database_url, secret_key=secret_key, pages_dir=Path(pages) if pages else None
    )
    tune_gc_for_serving()
    return app
