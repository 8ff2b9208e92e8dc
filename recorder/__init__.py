"""humantrace: recorder."""
