"""Review: what a change did to the golden set (`goldcase review`), built apart from rendered."""
