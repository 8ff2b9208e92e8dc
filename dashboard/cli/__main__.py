"""`python -m dashboard.cli`: the same CLI as the `humantrace` command."""

from humantrace.dashboard.cli.main import app

app()
