"""Audit: re-derive every output from the queue log and compare it with what was published."""
