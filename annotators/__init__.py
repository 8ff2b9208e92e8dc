"""humantrace: annotators."""
