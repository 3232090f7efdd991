"""A run's numbers: summaries with intervals, built from finished items, per slice, and its gates."""
