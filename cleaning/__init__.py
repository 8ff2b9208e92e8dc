"""humantrace: cleaning."""
