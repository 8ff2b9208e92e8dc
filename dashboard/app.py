"""`create_app(settings)`: the one place the web application is assembled."""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DataError, InterfaceError, OperationalError
from starlette.concurrency import run_in_threadpool

from humantrace.core import migrate
from humantrace.core.db import make_engine
from humantrace.core.requestlog import (
    DATABASE_ERRORS,
    RequestLogMiddleware,
    database_unreachable_response,
    loggable_path,
    wants_json,
)
from humantrace.core.settings import Settings, get_settings
from humantrace.dashboard.flow import live, presence, website
from humantrace.dashboard.flow import routes as study
from humantrace.dashboard.flow import service as flow
from humantrace.dashboard.flow.presence_middleware import EnvironmentPresenceMiddleware
from humantrace.dashboard.flow.routes import REC_COOKIE
from humantrace.dashboard.people import routes as auth
from humantrace.dashboard.review import routes as lead
from humantrace.dashboard.studies import monitor as study_monitor
from humantrace.dashboard.studies import people as study_people
from humantrace.dashboard.studies import router as study_pages
from humantrace.dashboard.studies.deps import StudyChoiceNeeded
from humantrace.dashboard.web import home
from humantrace.dashboard.web.deps import CsrfFailed, LeadOnly, LoginRequired
from humantrace.dashboard.web.headers import SecurityHeadersMiddleware
from humantrace.dashboard.web.pages import render
from humantrace.environments.mount import mount_environments
from humantrace.recorder.control import router as recorder_control_router
from humantrace.recorder.inject import RecorderInjectionMiddleware
from humantrace.recorder.privacy import ForgetClientAddressMiddleware
from humantrace.recorder.router import router as recorder_router

log = logging.getLogger("humantrace.http")


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the app for `settings` (default: from the environment). Nothing is built at import time."""
    settings = (settings or get_settings()).ensure_secrets()
    engine = make_engine(settings.database_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if settings.check_schema:
            migrate.check_schema(engine, settings.database_url)
        monitor = asyncio.create_task(_presence_monitor(engine)) if settings.run_monitor else None
        yield
        if monitor is not None:
            monitor.cancel()
        writer = getattr(app.state, "recorder_writer", None)
        if writer is not None:
            await run_in_threadpool(writer.close)  # finish queued event writes before exiting
        engine.dispose()

    # The OpenAPI document only on a developer's machine (schemathesis reads it in the tests); no
    # docs pages anywhere (they would need inline script); the controller routes are never listed.
    openapi_url = "/openapi.json" if settings.is_local else None
    app = FastAPI(
        title="humantrace", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=openapi_url
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.presence_beat = presence.PresenceBeat(engine)
    app.state.live_feed = live.LiveFeed(engine)

    app.mount("/static", StaticFiles(directory=str(Path(__file__).parent / "static")), name="static")
    app.include_router(auth.router)
    app.include_router(home.router)
    app.include_router(study.router)
    app.include_router(lead.router)
    app.include_router(study_pages.router)
    app.include_router(study_people.router)
    app.include_router(study_monitor.router)
    app.include_router(live.router)
    app.include_router(website.router)
    app.include_router(recorder_router)
    app.include_router(recorder_control_router, include_in_schema=False)
    mount_environments(app)
    # Outermost last: the recorder goes into environment pages of a running attempt, and no
    # layer (nor uvicorn's own websocket log line) ever sees the client address.
    app.add_middleware(RecorderInjectionMiddleware, path_prefixes=("/env/",), cookie_name=REC_COOKIE)
    app.add_middleware(EnvironmentPresenceMiddleware)
    app.add_middleware(website.WebsiteTabMiddleware)
    _install_error_pages(app)
    app.add_middleware(RequestLogMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)  # outside the request log: its 503s get the headers too
    app.add_middleware(ForgetClientAddressMiddleware)
    return app


async def _presence_monitor(engine) -> None:
    """Every process sweeps; the conditional updates in the flow make concurrent sweeps safe."""
    while True:
        try:
            await run_in_threadpool(presence.sweep, engine)
        except asyncio.CancelledError:
            raise
        except DATABASE_ERRORS:  # database down: try again next second, the clock will forgive the gap
            log.warning("presence sweep: database unreachable; retrying")
        except Exception:  # a bug: its traceback, and the monitor goes on
            log.warning("presence sweep failed; retrying", exc_info=True)
        await asyncio.sleep(presence.SWEEP_SECONDS)


def _install_error_pages(app: FastAPI) -> None:
    @app.exception_handler(LoginRequired)
    async def _login_required(request: Request, _exc: LoginRequired):
        if wants_json(request):
            return JSONResponse({"detail": "Not logged in: open your personal login link."}, status_code=401)
        return RedirectResponse(f"/login?next={quote(request.url.path)}", status_code=303)

    @app.exception_handler(StudyChoiceNeeded)
    async def _study_choice_needed(request: Request, _exc: StudyChoiceNeeded):
        if wants_json(request):
            return JSONResponse({"detail": "Choose the study to work in first (/studies)."}, status_code=409)
        person = getattr(request.state, "annotator", None)
        return RedirectResponse(
            "/lead/studies" if person is not None and person.is_lead else "/studies", status_code=303
        )

    @app.exception_handler(LeadOnly)
    async def _lead_only(request: Request, _exc: LeadOnly):
        if wants_json(request):
            return JSONResponse({"detail": "This is for study leads only."}, status_code=403)
        return render(request, "forbidden.html", status_code=403)

    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    async def _database_unreachable(request: Request, _exc: Exception):
        log.warning("%s %s: database unreachable", request.method, loggable_path(request.url.path))
        return database_unreachable_response(wants_json(request), reload=request.method == "GET")

    @app.exception_handler(DataError)
    async def _value_does_not_fit(request: Request, _exc: DataError):
        # PostgreSQL refuses a value longer than its column (SQLite stores it): every known text
        # field is checked before it is written; this answers any that is not, instead of a 500.
        log.warning("%s %s: a value did not fit its column", request.method, loggable_path(request.url.path))
        message = "A value you sent is too long or not in the expected form; nothing was saved. Shorten it and try again."
        if wants_json(request):
            return JSONResponse({"detail": message}, status_code=422)
        return render(request, "error.html", status_code=422, title="Not saved", message=message)

    @app.exception_handler(flow.FlowError)
    async def _flow_refused(request: Request, exc: flow.FlowError):
        # The study flow's one refusal: JSON for the control tab's scripts, else the error page.
        if wants_json(request):
            return JSONResponse({"detail": exc.message}, status_code=exc.status_code)
        title = "Not found" if isinstance(exc, flow.NotFound) else "That did not work"
        return render(request, "error.html", status_code=exc.status_code, title=title, message=exc.message)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        # A bug (an evaluator's, say) is never passed off as an outage: logged with its traceback, a 500.
        log.error("%s %s: unexpected error", request.method, loggable_path(request.url.path), exc_info=exc)
        message = "Something went wrong on the server (it has been logged). Nothing you did caused it: try again, or tell the study lead."
        if wants_json(request):
            return JSONResponse({"detail": message}, status_code=500)
        return HTMLResponse(f"<!doctype html><title>Server error</title><p>{message}</p>", status_code=500)

    @app.exception_handler(CsrfFailed)
    async def _csrf_failed(request: Request, _exc: CsrfFailed):
        message = "This form was not sent from a current humantrace page (missing or stale security token). Reload the page and try again."
        if wants_json(request):
            return JSONResponse({"detail": message}, status_code=403)
        return render(request, "error.html", status_code=403, title="Form expired", message=message)


def preload_for_serving() -> None:
    """Do at start-up the one-off work the first requests of a process would otherwise do.

    Loading the task catalog (about 0.45 s of CPU) and importing the evaluator with networkx and
    the cleaning pipeline with Arrow's pandas conversion (about 0.3 s) otherwise happen inside the
    first requests that need them, holding the GIL while every other request of the process
    waits; the first Evaluate of a study's annotators tends to come in a wave. A broken catalog is
    only logged here: the requests that need it report it, as before.
    """
    import networkx.algorithms.bipartite  # noqa: F401  (imported lazily by the evaluator's matching)
    import pyarrow.pandas_compat  # noqa: F401  (imported lazily by cleaning.to_records, at every Evaluate)

    import humantrace.cleaning  # noqa: F401
    import humantrace.environments.evaluator  # noqa: F401
    from humantrace.environments import catalog

    try:
        catalog.load_catalog()
    except catalog.SpecError as exc:
        logging.getLogger("humantrace").warning("the task catalog has errors: %s", exc)


def create_app_from_env() -> FastAPI:
    """Factory for `uvicorn --factory` and worker processes: preloads, then tunes the garbage collector."""
    from humantrace.recorder.gc_tuning import tune_gc_for_serving

    app = create_app()
    preload_for_serving()
    tune_gc_for_serving()  # last: freezes everything built so far, the preloaded modules included
    return app
