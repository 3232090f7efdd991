"""What a run leaves behind, and ways to look at it.

- `_items`: one finished item (`ItemResult`) and its errors;
- `_stats`: means, confidence intervals and totals (`RunSummary`), the CLI's table;
- `_summary`: `summarize` finished items into a `RunSummary`;
- `_comparison`: two runs compared item by item (`RunComparison`);
- `_many_runs`: a baseline and several candidates (`RunsComparison`);
- `_jsonl`: the results file, written line by line and read back;
- `_header`: the file's header line (`RunHeader`: scorer definitions, thresholds);
- `_views`: DataFrames; `_html`: the self-contained HTML report;
- `_run_view`: the reading API of a run (`RunView`), a run read back from its file
  (`ResultList`, `read_results`);
- `_eval_result`: `EvalResult`, `compare_runs` on top of them all.
"""

from scorers import mean_ci

from .._compare._comparison import RunComparison, ScorerDelta, compare_items
from .._compare._many_runs import RunRow, RunsComparison
from .._file._header import RunHeader, ScorerDefinition
from .._file._items import ErrorRecord, ItemError, ItemResult, TargetResult, run_errors
from .._stats._gate import Gate, gates, item_status
from .._stats._summaries import CallTotals, RunSummary, ScorerSummary, format_table
from .._stats._summarize import summarize
from ._eval_result import EvalResult, compare_runs
from ._run_view import ResultList, RunView, read_results

__all__ = [
    "CallTotals",
    "ErrorRecord",
    "EvalResult",
    "Gate",
    "ItemError",
    "ItemResult",
    "ResultList",
    "RunComparison",
    "RunHeader",
    "RunRow",
    "RunSummary",
    "RunView",
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
