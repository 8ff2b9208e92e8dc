"""Exports glue: the study's rows written as a human reference bundle, re-cleaning a study's traces."""
