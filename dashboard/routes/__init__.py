"""HTTP routes of the dashboard, one module per area."""
