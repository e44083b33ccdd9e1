"""Authoring: `goldcase new`, `goldcase fmt` and `goldcase init`."""
