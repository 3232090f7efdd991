"""scorekit evals: run scorers over labelled data sets and agents.

Everything public is re-exported here; the modules behind it are private.
"""

from scorers import AgentOutput, DatasetError

from ._agent import (
    Agent,
    InMemoryScoreStore,
    Sampling,
    ScoreRecord,
    ScoreStore,
    SqliteScoreStore,
    Tool,
)
from ._data import EvalItem, load_dataset
from ._report import RunSummary, ScorerSummary, mean_ci
from ._runner import (
    EvalResult,
    ItemError,
    ItemFailedError,
    ItemResult,
    TargetOutput,
    TargetResult,
    arun_evals,
    run_evals,
)

__all__ = [
    "Agent",
    "AgentOutput",
    "DatasetError",
    "EvalItem",
    "EvalResult",
    "InMemoryScoreStore",
    "ItemError",
    "ItemFailedError",
    "ItemResult",
    "RunSummary",
    "Sampling",
    "ScoreRecord",
    "ScoreStore",
    "ScorerSummary",
    "SqliteScoreStore",
    "TargetOutput",
    "TargetResult",
    "Tool",
    "arun_evals",
    "load_dataset",
    "mean_ci",
    "run_evals",
]
