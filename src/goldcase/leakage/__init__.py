"""Leakage: prompt files, phrase search, near-duplicates, salted hashes, `leakage --against`,
n-gram contamination and its scan engines."""
