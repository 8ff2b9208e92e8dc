"""The websites the framework looks for, by subpackage name (`environments.<name>`).

A name whose subpackage does not exist (yet) is skipped; a subpackage that exists but fails to
import is an error, so a broken site is never silently missing from a study.
"""

SITES: list[str] = ["shop", "mail", "booking", "brokerage", "portal", "lms", "forum"]
