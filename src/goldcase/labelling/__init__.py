"""Labelling: second-labeller label files and agreement statistics."""
