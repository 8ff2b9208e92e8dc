"""Studies: the study, assignment, attempt and rating tables; creating studies, their validated and
audited settings and lifecycle; the study a request acts on; the lead's study, people and monitor
pages; panel planning into assignments; the demo study."""
