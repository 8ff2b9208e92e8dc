"""humantrace: environments (self-hosted mock websites, sessions, interventions, evaluation).

Importing this package is cheap: nothing is built and no site is imported until asked.
`mount_environments(app)` adds every router, the network middleware and static files to an app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI


def mount_environments(app: FastAPI) -> None:
    """Mount the framework and every registered site on `app` (see `environments.mount`)."""
    from humantrace.environments.mount import mount_environments as mount

    mount(app)
