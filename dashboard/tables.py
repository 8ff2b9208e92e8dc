"""Every module that defines tables, imported in one place so the metadata is complete.

Alembic's env, the schema check and the tests all call `metadata()`; a new table module is added
to `TABLE_MODULES` and gets a revision (`humantrace db revision -m ...`).
"""

from __future__ import annotations

import importlib

from sqlalchemy import MetaData
from sqlmodel import SQLModel

TABLE_MODULES = [
    "humantrace.environments.models",
    "humantrace.recorder.models",
    "humantrace.annotators.models",
    "humantrace.dashboard.studies.models",
]


def metadata() -> MetaData:
    """The complete metadata of every humantrace table."""
    for module in TABLE_MODULES:
        importlib.import_module(module)
    return SQLModel.metadata
