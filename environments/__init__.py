"""humantrace: environments."""
