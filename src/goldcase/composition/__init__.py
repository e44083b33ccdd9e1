"""Composition: what the golden set is made of (`goldcase stats`)."""
