"""`run_evals` / `arun_evals`: score a labelled set against a target, never losing work.

The runner orchestrates: check the options → load, shard and plan the resume → hand the
items to the engine (`score_many`) → write, hook and stop on failure as each finishes →
summarize. How scorers run (tasks, inline, fast-path blocks, GC policy) is the engine's.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scorers import JudgeSetupError, LiteLLMTransport, Scorer, score_many
from scorers._internal import warn_user

from .._file._header import RunHeader, header_of
from .._keyed import scorer_map
from .._results import EvalResult, ItemResult, RunSummary
from .._stats._gate import gates
from .._twins import sync_twin
from ._finish import Finish, ItemFailedError, ItemHook
from ._jobs import make_jobs
from ._options import RunOptions
from ._progress import Progress, waiting_for_litellm
from ._resume import open_results, resume_plans
from ._source import ItemSource
from ._targets import target_caller, target_identity


async def arun_evals(
    data: str | os.PathLike[str] | Iterable[Any],
    scorers: Sequence[Scorer] | Mapping[str, Scorer] | Scorer,
    target: Any = None,
    *,
    on_item_complete: ItemHook | None = None,
    concurrency: int = 8,
    model_concurrency: int | None = None,
    results_path: str | os.PathLike[str] | None = None,
    resume: bool = False,
    fail_fast: bool = False,
    item_timeout: float | None = None,
    thresholds: Mapping[str, float] | None = None,
    min_scored: float | None = None,
    item_thresholds: Mapping[str, float] | None = None,
    store_prompts: bool = True,
    shard: tuple[int, int] | str | None = None,
    max_cost: float | None = None,
    progress: bool | str | None = None,
    keep_items: bool = True,
) -> EvalResult:
    """Score every item of ``data`` with ``scorers``, running ``target`` first if given.

    Args:
        data: A ``.jsonl`` / ``.json`` / ``.csv`` path, or a list of dicts / `EvalItem`s.
        scorers: Scorers (results keyed by their ids), or a dict name -> scorer.
        target: An `Agent`, a sync or async callable ``input -> output``, or None when
            items carry ``output`` / ``context``. With a target, what it returns is
            scored — its answer and the chunks it retrieved (`TargetOutput`,
            ``{"output", "context"}``, a framework's result, a list of chunks) — and the
            data's own ``output`` / ``context`` are not used (`IgnoredColumnsWarning`
            says so). A target that returns only an answer leaves the context to each
            scorer's options (``context_extractor="auto"`` reads it from the output).
        on_item_complete: Called once per finished item with its `ItemResult` (sync or
            async), after the item is written to ``results_path``. An exception in it
            stops the run and is raised as it is (with a note naming the item, on
            Python 3.11+); items already finished, that one included, stay written,
            and ``resume=True`` continues after them.
        {run_options}

    Returns:
        An `EvalResult`.

    Raises:
        DatasetError: For malformed data, naming the row and field.
        ConfigError: For bad arguments (unknown threshold ids, an existing results file
            without ``resume``...).
        ItemFailedError: With ``fail_fast=True``.
        JudgeSetupError: At the first model call that meets a broken setup (no or a
            rejected API key, no permission, an unknown model), whatever ``fail_fast``
            says: every other item would fail the same way. Finished items stay in
            ``results_path``; ``resume=True`` continues once the setup is fixed.
    """
    started, cpu_started = time.perf_counter(), time.process_time()
    import_cpu_before = LiteLLMTransport.import_state().cpu_s
    scorer_by_key = scorer_map(scorers)
    given = locals()
    opts = RunOptions.checked(scorer_by_key, **{name: given[name] for name in RunOptions.names()})
    call_target = target_caller(target)
    source = ItemSource(data, opts.shard, stream=not opts.keep_items)
    if call_target is not None:
        _warn_unused_columns(source.columns)
    header = _run_header(scorer_by_key, opts, target, source)
    fingerprints = {sid: d.fingerprint for sid, d in header.scorers.items()}
    results_file = open_results(opts, source.ids, header)
    bar = Progress(len(source), opts.progress, status=waiting_for_litellm)
    sink = Finish(scorer_by_key, fingerprints, opts, results_file, bar, on_item_complete)
    try:
        for chunk in source.chunks():
            done, sink.partial = resume_plans(chunk, results_file, fingerprints, bool(call_target))
            sink.resumed_whole(done)
            bar.total -= len(done)
            skip = {result.item.id for result in done}
            pending = [item for item in chunk if item.id not in skip] if skip else chunk
            await score_many(
                scorer_by_key,
                make_jobs(pending, sink.partial, call_target),
                sink,
                concurrency=opts.concurrency,
                model_concurrency=opts.model_concurrency or opts.concurrency * len(scorer_by_key),
                max_cost=opts.max_cost,
                timeout=opts.item_timeout,
                on_block=sink.block if sink.plain else None,
            )
    except JudgeSetupError as exc:
        where = f"; finished items are in {opts.results_path}" if opts.results_path else ""
        exc.args = (f"{exc} The run stopped at the first such failure{where}.",)
        raise
    finally:
        bar.close()
        if results_file is not None:
            results_file.close()

    summary = sink.finish(time.perf_counter() - started)
    # a first model call imports litellm (seconds of CPU, once): not the run's pace
    imported = LiteLLMTransport.import_state().cpu_s - import_cpu_before
    summary.client_cpu_s = time.process_time() - cpu_started - imported
    ordered = [sink.kept[i] for i in source.ids if i in sink.kept]
    return _eval_result(summary, ordered, scorer_by_key, opts, header)


def _run_header(
    scorers: Mapping[str, Scorer], opts: RunOptions, target: Any, source: ItemSource
) -> RunHeader:
    """The run's header: its scorers, gates, target and (when written to a file) data."""
    return header_of(
        scorers,
        opts.thresholds,
        opts.min_scored,
        opts.item_thresholds,
        target=target_identity(target),
        data=None if opts.results_path is None else source.identity(),
    )


class IgnoredColumnsWarning(UserWarning):
    """The data carries ``output``/``context`` that a run with a target does not score."""


def _warn_unused_columns(columns: Sequence[str]) -> None:
    """With a target, what it returns is scored: say so when the data has its own."""
    if columns:
        warn_user(
            f"the data has {' and '.join(repr(c) for c in columns)} values, and a target is "
            "given: the target's own answer and retrieval are scored, the data's are not "
            "used (drop the target (CLI: --target) to score the data's)",
            IgnoredColumnsWarning,
        )


def _eval_result(
    summary: RunSummary,
    items: list[ItemResult],
    scorers: Mapping[str, Scorer],
    opts: RunOptions,
    header: RunHeader,
) -> EvalResult:
    scores = {sid: s.mean for sid, s in summary.scorers.items() if sid in scorers}
    thresholds = dict(opts.thresholds or {})
    failed = [gate.scorer for gate in gates(summary, header) if not gate.passed]
    path = opts.results_path
    return EvalResult(
        scores=scores,
        summary=summary,
        items=items,
        thresholds=thresholds,
        min_scored=opts.min_scored,
        passed=None if not thresholds else not failed,
        failed_thresholds=failed,
        results_path=None if path is None else str(path),
        header=header,
        items_kept=opts.keep_items,
    )


assert arun_evals.__doc__ is not None
arun_evals.__doc__ = arun_evals.__doc__.replace("        {run_options}", RunOptions.args_doc())

run_evals = sync_twin(
    arun_evals,
    "Synchronous `arun_evals` (also works inside a running event loop, e.g. Jupyter); "
    "Ctrl-C stops the run, and every finished item is already in ``results_path``.",
)


__all__ = ["IgnoredColumnsWarning", "ItemFailedError", "arun_evals", "run_evals"]
