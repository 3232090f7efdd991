"""scorekit evals: run scorers over labelled data sets, agents, the CLI."""

from scorers import AgentOutput

__all__ = ["AgentOutput"]
