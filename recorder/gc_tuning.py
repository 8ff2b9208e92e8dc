"""Garbage-collector settings for a long-running server process.

Every recorder batch and every request allocates thousands of short-lived objects (validated
events, rows, ASGI messages). With CPython's default threshold (a young collection every 700
allocations) and the tens of thousands of long-lived objects a FastAPI app holds (modules,
routes, schemas), the collector ran about 200 times a second under ingestion load and a full
collection every second or so, which cost the recorder server about a quarter of its CPU
(benchmarks/ingest.py). Two changes, applied once per server process after the app is built:

- `gc.freeze()` moves everything alive at start-up (imports, the app, its routes and schemas)
  out of the collector's sight: those objects live as long as the process anyway;
- a larger young-generation threshold: objects that die young are freed by reference counting
  (nearly all of them), so collecting cycles every 700 allocations only costs time.

Not applied in tests or when an app is built inside another program: only the server entry
points (`dashboard.app.create_app_from_env`, `recorder.standalone.app_from_env`) call it.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000


def tune_gc_for_serving() -> None:
    """Freeze the objects built so far and collect young objects less often (call once, at start-up)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
