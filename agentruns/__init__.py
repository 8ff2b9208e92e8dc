"""humantrace: agentruns. Our task-conditions as a BrowserGym benchmark, the agent runner and
agent bundles (same recorder, same evaluator, same seed as the humans), built-in agents (oracle,
random, replay of human traces). See docs/agents.md.

Nothing is registered at import time of this package; importing `agentruns.gym` registers the
BrowserGym tasks (gymnasium has no plugin entry points).
"""
