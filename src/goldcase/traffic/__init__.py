"""Production traffic into the set: reading traces, drawing a sample, drafts, promotion."""
