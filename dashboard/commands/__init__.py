"""Sub-commands of the `humantrace` CLI, one module per area."""
