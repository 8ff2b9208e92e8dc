"""The four intervention layers.

- seed: site builders run at session creation (`environments.seeding`).
- server: one structural mutation after seeding (`server.py` holds the generic ones).
- network: ASGI middleware on `/api/env/*` (`network.py`, `dispatches.py`, `modes.py`, `counters.py`).
- client: a script injected into the pages of sessions that register client dispatches (`client.py`).
"""
