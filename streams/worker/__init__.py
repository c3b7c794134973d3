"""The Faust worker: agent, timer, state snapshots and catch-up (see streams/__init__.py)."""
