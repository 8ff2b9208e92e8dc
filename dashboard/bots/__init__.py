"""Bots: simulated annotators that play assignments in Chromium (demo, load tests)."""
