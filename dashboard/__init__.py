"""humantrace: dashboard."""
