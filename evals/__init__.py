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
from ._report import CallTotals, RunComparison, RunSummary, ScorerDelta, ScorerSummary, mean_ci
from ._runner import (
    EvalResult,
    ItemError,
    ItemFailedError,
    ItemResult,
    TargetOutput,
    TargetResult,
    arun_evals,
    compare_runs,
    read_results,
    run_evals,
)

__all__ = [
    "Agent",
    "AgentOutput",
    "CallTotals",
    "DatasetError",
    "EvalItem",
    "EvalResult",
    "InMemoryScoreStore",
    "ItemError",
    "ItemFailedError",
    "ItemResult",
    "RunComparison",
    "RunSummary",
    "Sampling",
    "ScoreRecord",
    "ScoreStore",
    "ScorerDelta",
    "ScorerSummary",
    "SqliteScoreStore",
    "TargetOutput",
    "TargetResult",
    "Tool",
    "arun_evals",
    "compare_runs",
    "load_dataset",
    "mean_ci",
    "read_results",
    "run_evals",
]
