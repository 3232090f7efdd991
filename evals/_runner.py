"""`run_evals` / `arun_evals`: score a labelled set against a target, never losing work.

The runner orchestrates: check the options → load, shard and plan the resume → hand the
items to the engine (`score_many`) → write, hook and stop on failure as each finishes →
summarize. How scorers run (tasks, inline, fast-path blocks, GC policy) is the engine's.
"""

from __future__ import annotations

import inspect
import os
import time
import warnings
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scorers import ConfigError, JudgeSetupError, ScorekitError, Scorer
from scorers._runtime import Scored, litellm_import, run_sync, score_many

from ._data import EvalItem, load_dataset
from ._jobs import item_result, make_jobs
from ._options import RunOptions, scorer_map
from ._progress import Progress
from ._results import CallTotals, EvalResult, ItemResult, RunSummary, summarize
from ._results._gate import gates
from ._results._header import RunHeader, header_of, stale_configurations
from ._results._jsonl import ResultsFile
from ._resume import ResumePlan, resume_plan
from ._shards import select_shard
from ._targets import target_caller


class ItemFailedError(ScorekitError):
    """Raised by ``run_evals(fail_fast=True)`` at the first failed item.

    Attributes:
        item_result: The failed item (already written to the results file).
    """

    def __init__(self, item_result: ItemResult):
        error = item_result.error
        super().__init__(
            f"item {item_result.item.id!r} failed in phase {error.phase if error else '?'}: "
            f"{error.message if error else ''} (fail_fast=True stopped the run)"
        )
        self.item_result = item_result


ItemHook = Callable[[ItemResult], "Awaitable[None] | None"]


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
        concurrency: Items in flight at once (an integer >= 1); each item's scorers run
            concurrently.
        model_concurrency: An extra cap on model requests in flight across the whole run
            (an integer >= 1; default ``concurrency × number of scorers``). Each judge's own
            ``max_concurrency`` and ``requests_per_minute`` still hold: the smaller limit
            wins.
        results_path: Stream one JSON line per finished item here.
        resume: Keep the items already in ``results_path``. An item runs again from
            scratch when its content changed since (same id, different fields) or it
            failed outside its scorers (target error, timeout); a scorer is re-run on a
            kept target output when it has no result for the item, failed, or had
            another configuration (its `Scorer.fingerprint`: judge, options, scale,
            prompt version). A line cut short by a crash is dropped; the last line per
            id wins.
        fail_fast: Stop at the first failed item with `ItemFailedError`.
        item_timeout: Seconds allowed per item (target and scorers): finite and > 0;
            None for no limit.
        thresholds: Minimum mean per scorer id (finite numbers); sets ``passed``.
        item_thresholds: Minimum score per scorer id for an item to pass (recorded in
            the results file's header; reports and `EvalResult.item_status` mark the
            items below it as failed). Without one, a scorer's ``thresholds`` entry is
            its items' bar too.
        min_scored: With thresholds: the share of items (0 to 1) each thresholded scorer
            must have scored; skipped and errored items count against it.
        store_prompts: Keep prompts and sent messages in ``results_path`` (each once);
            False writes compact lines with what explains each score (verdicts, claims,
            short reasons; chunks as references to the item's; raw responses only of
            failed calls).
        shard: ``(i, n)`` (or ``"i/n"``): run only the items whose id hashes to shard i
            of n — a stable, content-independent split, so n processes or machines can
            each run one shard into its own results file and `merge_results` combines
            them.
        max_cost: A cap in USD on this invocation's model calls: once the finished
            calls' cost plus what calls in flight reserved (their prompt tokens and
            ``max_tokens`` — 512 when unset — at the judge's price) would pass it, no
            new call starts. A new item starts only when it and the rest of every
            started item fit (the first runs alone to measure an item), so the run
            stops with `BudgetExceededError` having finished what it started; finished items
            stay in ``results_path``, and ``resume=True`` with a new cap continues.
        progress: ``"auto"`` (default; None too): a bar on a terminal or in a notebook,
            plain lines every 10 s on stderr for a longer run with no terminal (CI logs);
            ``"bar"`` (True), ``"plain"``, ``"none"`` (False).

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
    import_cpu_before = litellm_import().cpu_s
    scorer_by_key = scorer_map(scorers)
    opts = RunOptions.checked(
        scorer_by_key,
        concurrency=concurrency,
        model_concurrency=model_concurrency,
        results_path=results_path,
        resume=resume,
        fail_fast=fail_fast,
        item_timeout=item_timeout,
        thresholds=thresholds,
        min_scored=min_scored,
        item_thresholds=item_thresholds,
        store_prompts=store_prompts,
        shard=shard,
        max_cost=max_cost,
        progress=progress,
    )
    call_target = target_caller(target)
    items = select_shard(load_dataset(data), opts.shard)
    if call_target is not None:
        _warn_unused_columns(items)
    header = header_of(scorer_by_key, opts.thresholds, opts.min_scored, opts.item_thresholds)
    fingerprints = {sid: d.fingerprint for sid, d in header.scorers.items()}
    path = opts.results_path
    results_file = _open_results(opts, items, header)
    done, partial = _resume_plans(items, results_file, fingerprints, call_target is not None)
    resumed = set(done)
    jobs = make_jobs([item for item in items if item.id not in done], partial, call_target)
    bar = Progress(len(jobs), opts.progress, status=_waiting)
    sink = _Finish(scorer_by_key, fingerprints, opts, results_file, done, bar, on_item_complete)
    try:
        await score_many(
            scorer_by_key,
            jobs,
            sink,
            concurrency=opts.concurrency,
            model_concurrency=opts.model_concurrency or opts.concurrency * len(scorer_by_key),
            max_cost=opts.max_cost,
            timeout=opts.item_timeout,
        )
    except JudgeSetupError as exc:
        where = f"; finished items are in {path}" if path else ""
        exc.args = (f"{exc} The run stopped at the first such failure{where}.",)
        raise
    finally:
        bar.close()
        if results_file is not None:
            results_file.close()

    summary = _summary(items, done, partial, scorer_by_key, resumed, started)
    # a first model call imports litellm (seconds of CPU, once): not the run's pace
    imported = litellm_import().cpu_s - import_cpu_before
    summary.client_cpu_s = time.process_time() - cpu_started - imported
    ordered = [done[item.id] for item in items if item.id in done]
    return _eval_result(summary, ordered, scorer_by_key, opts, header)


def _waiting() -> str | None:
    if litellm_import().loading:
        return "importing litellm for the first model call (seconds, once per process)"
    return None


class _Finish:
    """What happens to each finished item, in order: its `ItemResult` is written, kept,
    counted on the progress bar and handed to the hook; a failure stops the run under
    ``fail_fast``."""

    def __init__(
        self,
        scorers: Mapping[str, Scorer],
        fingerprints: Mapping[str, str],
        opts: RunOptions,
        results_file: ResultsFile | None,
        done: dict[str, ItemResult],
        bar: Progress,
        hook: ItemHook | None,
    ) -> None:
        self.order, self.fingerprints, self.opts = list(scorers), fingerprints, opts
        self.results_file, self.done, self.bar, self.hook = results_file, done, bar, hook
        self.scales = {sid: s.scale for sid, s in scorers.items() if s.scale != 1.0}

    async def __call__(self, scored: Scored) -> None:
        timeout = self.opts.item_timeout
        result = item_result(scored, self.order, self.fingerprints, timeout, self.scales)
        if self.results_file is not None:
            result = self.results_file.write(result)
        self.done[result.item.id] = result
        calls = CallTotals()
        for call in result.other_calls:
            calls.add(call)
        for score in result.scorer_results.values():
            for call in score.judge_calls:
                calls.add(call)
        self.bar.advance(result.error is not None, calls.model_calls, calls.cost)
        if self.hook is not None:
            try:
                outcome = self.hook(result)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:
                where = self.opts.results_path
                kept = f"; finished items, this one included, are in {where}" if where else ""
                if hasattr(exc, "add_note"):  # Python 3.11+
                    exc.add_note(
                        f"raised by on_item_complete for item {result.item.id!r}: the run "
                        f"stopped{kept} (resume=True continues)"
                    )
                raise
        if self.opts.fail_fast and result.error is not None:
            raise ItemFailedError(result)


class IgnoredColumnsWarning(UserWarning):
    """The data carries ``output``/``context`` that a run with a target does not score."""


def _warn_unused_columns(items: Sequence[EvalItem]) -> None:
    """With a target, what it returns is scored: say so when the data has its own."""
    columns = [
        name for name in ("output", "context") if any(getattr(i, name) is not None for i in items)
    ]
    if columns:
        warnings.warn(
            f"the data has {' and '.join(repr(c) for c in columns)} values, and a target is "
            "given: the target's own answer and retrieval are scored, the data's are not "
            "used (drop the target to score the data's)",
            IgnoredColumnsWarning,
            stacklevel=4,
        )


def _open_results(
    opts: RunOptions, items: Sequence[EvalItem], header: RunHeader
) -> ResultsFile | None:
    """The run's results file, opened (and its earlier items read, when resuming) and
    checked before this run's header is written; None without ``results_path``."""
    if opts.results_path is None:
        return None
    results_file = ResultsFile(Path(opts.results_path), opts.resume, opts.store_prompts, header)
    try:
        _refuse_mixing(results_file, items, header)
    except BaseException:
        results_file.close()
        raise
    results_file.begin()
    return results_file


def _refuse_mixing(results_file: ResultsFile, items: Sequence[EvalItem], header: RunHeader) -> None:
    """Resuming under another configuration re-scores the items of this run; items of
    the file that this run does not hold would keep the old one and leave two
    configurations in one file: refused before anything is written."""
    wanted = {item.id for item in items}
    left = [r for r in results_file.previous.values() if r.item.id not in wanted]
    problems = stale_configurations(left, results_file.previous_headers, header)
    if problems:
        raise ConfigError(
            f"{results_file.path} holds items that this run does not include, scored under "
            f"another configuration: {'; '.join(problems)}. Resuming would leave two "
            "configurations in one file. Resume with all of its items (the same data, "
            "no other shard) to re-score them, or write this run to a new file"
        )


def _resume_plans(
    items: Sequence[EvalItem],
    results_file: ResultsFile | None,
    fingerprints: Mapping[str, str],
    has_target: bool,
) -> tuple[dict[str, ItemResult], dict[str, ResumePlan]]:
    """Items an earlier run finished that resuming keeps whole, and those it re-scores
    in part, by id."""
    previous = results_file.previous if results_file else {}
    done: dict[str, ItemResult] = {}
    partial: dict[str, ResumePlan] = {}
    for item in items:
        plan = resume_plan(previous.get(item.id), item, fingerprints, has_target)
        if plan is None:
            continue
        if plan.rescore:
            partial[item.id] = plan
        else:
            done[item.id] = plan.kept
    return done, partial


def _summary(
    items: Sequence[EvalItem],
    done: Mapping[str, ItemResult],
    partial: Mapping[str, ResumePlan],
    scorers: Mapping[str, Scorer],
    resumed: set[str],
    started: float,
) -> RunSummary:
    ordered = [done[item.id] for item in items if item.id in done]
    finished_partial = {item_id: plan for item_id, plan in partial.items() if item_id in done}
    return summarize(
        ordered,
        list(scorers),
        time.perf_counter() - started,
        resumed,
        scales={sid: scorer.scale for sid, scorer in scorers.items()},
        carried={
            item_id: {"<target>", *plan.kept.scorer_results}
            for item_id, plan in finished_partial.items()
        },
        rescored_for_config=sum(plan.config_changed for plan in finished_partial.values()),
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
    )


def run_evals(
    data: str | os.PathLike[str] | Iterable[Any],
    scorers: Sequence[Scorer] | Mapping[str, Scorer] | Scorer,
    target: Any = None,
    **kwargs: Any,
) -> EvalResult:
    """Synchronous `arun_evals` (also works inside a running event loop, e.g. Jupyter).

    Ctrl-C stops the run; every finished item is already in ``results_path``.
    """

    return run_sync(arun_evals, data, scorers, target, **kwargs)


__all__ = ["IgnoredColumnsWarning", "ItemFailedError", "arun_evals", "run_evals"]
