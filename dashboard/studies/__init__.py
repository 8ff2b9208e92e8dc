"""Studies: the study, assignment, attempt and rating tables, panel planning into assignments, the demo study."""
