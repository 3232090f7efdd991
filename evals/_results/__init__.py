"""What a run leaves behind, and ways to look at it.

- `_items`: one finished item (`ItemResult`) and its errors;
- `_stats`: means, confidence intervals and totals (`RunSummary`), the CLI's table;
- `_summary`: `summarize` finished items into a `RunSummary`;
- `_comparison`: two runs compared item by item (`RunComparison`);
- `_many_runs`: a baseline and several candidates (`RunsComparison`);
- `_jsonl`: the results file, written line by line and read back;
- `_header`: the file's header line (`RunHeader`: scorer definitions, thresholds);
- `_views`: DataFrames; `_html`: the self-contained HTML report;
- `_eval_result`: `EvalResult`, `read_results`, `compare_runs` on top of them all.
"""

from scorers import mean_ci

from ._comparison import RunComparison, ScorerDelta, compare_items
from ._eval_result import EvalResult, compare_runs, read_results
from ._gate import Gate, gates, item_status
from ._header import RunHeader, ScorerDefinition
from ._items import ErrorRecord, ItemError, ItemResult, TargetResult, run_errors
from ._many_runs import RunRow, RunsComparison
from ._stats import CallTotals, RunSummary, ScorerSummary, format_table
from ._summary import summarize

__all__ = [
    "CallTotals",
    "ErrorRecord",
    "EvalResult",
    "Gate",
    "ItemError",
    "ItemResult",
    "RunComparison",
    "RunHeader",
    "RunRow",
    "RunSummary",
    "RunsComparison",
    "ScorerDefinition",
    "ScorerDelta",
    "ScorerSummary",
    "TargetResult",
    "compare_items",
    "compare_runs",
    "format_table",
    "gates",
    "item_status",
    "mean_ci",
    "read_results",
    "run_errors",
    "summarize",
]
