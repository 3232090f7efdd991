"""``scorers.lowlevel``: the parts scorekit's own runner is built from, public for people
who build on scorekit (as ``anyio.lowlevel`` is for anyio) — `evals` imports nothing
else of `scorers` but the package's public names.

The engine:
    `score_many` runs many scorers over many jobs (`Job`, each finished one handed back
    as `Scored`), a sequence or a stream (an agent's live scorers are one `score_many`
    over the stream of its answers); `score_detached` scores one run as work that
    outlives its caller; `current_span` is the trace span a job's scores belong under
    (`Job.evaluated`).
Fast paths:
    `register_fast_path` (a decorator of ``factory(options) -> FastPath | None``),
    `with_fast_path` (a factory attaches the plug-in), `FastPath`, `Memo`, `Outcome`; one
    contract test runs every registered plug-in against its scorer's steps.
Checks of numeric options:
    `finite`, `integer`, `positive`: the value as a number, or a `ConfigError` naming the
    option, the allowed range and the value given.
Running and writing:
    `run_sync` (async code from sync callers, also inside a running event loop),
    `run_soon` (start work on scorekit's loop without waiting: work that must outlive the
    caller's own loop), `on_scorekit_loop`,
    `write_atomically` (whole or not at all; replaces only a file its writer recognises),
    `json_fallback` (how results files store values JSON cannot hold), `paused_gc`
    (validation of many objects without collector passes), `exception_text`,
    `warn_user` (a warning naming the user's line, not scorekit's).
The offline judge:
    `rule_answer(task_prompt, schema_name=None)` answers a judge prompt the way the fakes
    and estimates do (each registered scorer declares its contracts' answers, see
    `scorers.register_scorer`); `judge_contract(name, answer)` declares one for a step that
    is not a registered scorer; `supports(evidence, statement)` is the word-overlap rule.
Ranking measures:
    `MEASURES` is trec_eval's measures as one table of `Measure` entries (how to compute
    each for a batch of queries, default cutoffs, the mean's kind, print order, per item
    or not, named sets); `register_measure` adds one, and `evaluate_ranking`,
    `create_ranking_scorer` and ``scorekit trec -m`` see it; `trec_names` resolves
    ``-m`` arguments.
Registered scorers:
    `registry()`: every registered scorer (scorekit's and the ``scorekit.scorers`` entry
    points') as a self-describing entry: id, factory, needs a model, contract answers,
    Ragas name, what it overrides; `scorer_overrides()`: the ids a plugin took over on
    purpose (``override=True``), as registered so far, for results headers.
"""

from __future__ import annotations

from ._atomic import write_atomically
from ._caller import warn_user
from ._checks import finite, integer, positive
from ._engine import (
    FastPath,
    Job,
    Memo,
    Outcome,
    Scored,
    register_fast_path,
    score_detached,
    score_many,
    with_fast_path,
)
from ._engine._gc import paused_gc
from ._prebuilt._registry import Registered, judge_contract, registry
from ._prebuilt._registry import overrides as scorer_overrides
from ._prebuilt._rule_judge import rule_answer, supports
from ._ranking._measures import MEASURES, Measure, register_measure, trec_names
from ._reading import exception_text
from ._sync import on_scorekit_loop, run_soon, run_sync
from ._telemetry import current_span
from ._types import ONE_RETRIEVAL
from ._types import _json_fallback as json_fallback

__all__ = [
    "MEASURES",
    "ONE_RETRIEVAL",
    "FastPath",
    "Job",
    "Measure",
    "Memo",
    "Outcome",
    "Registered",
    "Scored",
    "current_span",
    "exception_text",
    "finite",
    "integer",
    "json_fallback",
    "judge_contract",
    "on_scorekit_loop",
    "paused_gc",
    "positive",
    "register_fast_path",
    "register_measure",
    "registry",
    "rule_answer",
    "run_soon",
    "run_sync",
    "score_detached",
    "score_many",
    "scorer_overrides",
    "supports",
    "trec_names",
    "warn_user",
    "with_fast_path",
    "write_atomically",
]
