"""Alembic environment and revisions for every humantrace table (see `core.migrate`)."""
