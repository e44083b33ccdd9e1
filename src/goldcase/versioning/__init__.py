"""Versioning: golden.version, golden.lock, `goldcase lock` and the merge driver."""
