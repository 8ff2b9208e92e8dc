"""`mount_environments(app)`: the one call that adds the framework and every site to an app."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from humantrace.environments import control, pages, registry
from humantrace.environments.interventions.network import NetworkInterventionMiddleware
from humantrace.environments.responses import REFUSAL_RESPONSES
from humantrace.environments.sitekit import install_site_errors


def mount_environments(app: FastAPI) -> None:
    """Add the framework routes, every registered site's API and pages, their static files and the
    network middleware. `app.state.engine` and `app.state.settings` must be set before requests."""
    install_site_errors(app)
    app.include_router(pages.router)
    app.include_router(control.router, include_in_schema=False)  # never in the OpenAPI document
    for env in registry.all_environments():
        app.include_router(env.api_router, prefix=f"/api/env/{env.env_id}", responses=REFUSAL_RESPONSES)
        app.include_router(env.page_router, prefix=f"/env/{env.env_id}")
        static = env.directory / "static"
        if static.is_dir():
            app.mount(
                f"/env-static/{env.env_id}", StaticFiles(directory=static), name=f"env-static-{env.env_id}"
            )
    app.add_middleware(NetworkInterventionMiddleware)
