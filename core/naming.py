"""The naming convention for every constraint and index on the shared SQLModel metadata.

Alembic needs deterministic constraint names to alter or drop them later (SQLite batch mode in
particular). The convention must be set before any table class is defined, so every module that
defines tables imports `NAMING_CONVENTION` from here first (explicitly, not relying on import order).
"""

from sqlmodel import SQLModel

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLModel.metadata.naming_convention = NAMING_CONVENTION
