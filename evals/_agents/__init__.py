"""Agents: a litellm tool-calling loop with tools, and the scorers attached to it that
run in the background after each answer (sampled, stored, flushed)."""
