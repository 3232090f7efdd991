"""The scorer engine: every way a scorer is run lives here.

- `score_one` / `score_inline`: one scorer's steps on one run (``_execute``, ``_prompts``);
- `score_many`: many runs of many scorers, choosing tasks, inline or blocks (``_many``),
  from a sequence of jobs or a stream (``_jobs``: `Job` in, `Scored` out);
- fast paths: plug-ins registered per prebuilt scorer, run on blocks (``_fast``);
- the GC policy of big runs (``_gc``).

`scorers.Scorer` is a spec the engine reads through `ScorerSpec`; `evals` reaches the
engine only through `score_many`, `Job` and `Scored`.
"""

from ._execute import error_result, score_detached, score_inline, score_one
from ._fast import (
    as_results,
    has_fast_path,
    register_fast_path,
    registered_fast_paths,
    with_fast_path,
)
from ._jobs import Job, OnBlock, Scored, ScoredBlock
from ._many import BLOCK, score_many, score_runs
from ._spec import FastPath, Memo, Outcome, ScorerSpec, model_free

__all__ = [
    "BLOCK",
    "FastPath",
    "Job",
    "Memo",
    "OnBlock",
    "Outcome",
    "Scored",
    "ScoredBlock",
    "ScorerSpec",
    "as_results",
    "error_result",
    "has_fast_path",
    "model_free",
    "register_fast_path",
    "registered_fast_paths",
    "score_detached",
    "score_inline",
    "score_many",
    "score_one",
    "score_runs",
    "with_fast_path",
]
