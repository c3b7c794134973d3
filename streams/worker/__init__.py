"""The worker: queue consumer, fold, publisher, timer, snapshots, catch-up (streams/__init__.py)."""
