"""humantrace: human studies on web tasks, recorded and scored exactly like AI web agents.

One import package for the whole distribution. Its subpackages are the repository's top-level
folders (`humantrace.core` is `core/`, `humantrace.environments` is `environments/`, ...), linked
here so that an editable install and a wheel both expose them under this one name and nothing
else: a project's own `core/` or `environments/` folder never shadows ours.
"""
