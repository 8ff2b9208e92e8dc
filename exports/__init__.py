"""humantrace: exports."""
