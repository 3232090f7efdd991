"""Prebuilt scorers, each a thin use of the public `create_scorer` pipeline."""
