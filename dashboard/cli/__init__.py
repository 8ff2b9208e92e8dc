"""The `humantrace` command line: `main` assembles the sub-commands, one module per area."""

from humantrace.dashboard.cli.main import app

__all__ = ["app"]
