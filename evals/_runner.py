"""`run_evals` / `arun_evals`: score a labelled set against a target, never losing work."""

from __future__ import annotations

import inspect
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping, Sequence
from contextlib import nullcontext, suppress
from operator import attrgetter
from pathlib import Path
from typing import Any

import anyio
from anyio import to_thread

from scorers import (
    ConfigError,
    JudgeSetupError,
    ScorekitError,
    Scorer,
    ScoreResult,
    ScorerRun,
)
from scorers._runtime import (
    Budget,
    Kernel,
    finite,
    frozen_gc,
    integer,
    litellm_import_cpu_s,
    map_bounded,
    optional_integer,
    optional_positive,
    paused_gc,
    positive,
    record_calls,
    run_budget,
    run_cap,
    run_sync,
    task_group,
    trusted,
)

from ._data import EvalItem, iter_dataset, load_dataset
from ._jsonl import ResultsFile
from ._progress import Progress
from ._report import RunSummary
from ._results import EvalResult, ItemError, ItemResult, summarize
from ._resume import ResumePlan, resume_plan
from ._shards import parse_shard, select_shard
from ._targets import as_target_result, target_caller


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


def _scorer_map(scorers: Sequence[Scorer] | Mapping[str, Scorer] | Scorer) -> dict[str, Scorer]:
    if isinstance(scorers, Scorer):
        scorers = [scorers]
    if isinstance(scorers, Mapping):
        mapping = dict(scorers)
    else:
        mapping = {}
        for scorer in scorers:
            if not isinstance(scorer, Scorer):
                raise ConfigError(f"scorers must be Scorer objects, got {type(scorer).__name__}")
            if scorer.id in mapping:
                raise ConfigError(
                    f"two scorers share the id {scorer.id!r}; pass a dict {{name: scorer}} "
                    "to name them apart"
                )
            mapping[scorer.id] = scorer
    if not mapping:
        raise ConfigError("run_evals needs at least one scorer")
    return mapping


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
    store_prompts: bool = True,
    shard: tuple[int, int] | str | None = None,
    max_cost: float | None = None,
    progress: bool | None = None,
) -> EvalResult:
    """Score every item of ``data`` with ``scorers``, running ``target`` first if given.

    Args:
        data: A ``.jsonl`` / ``.json`` / ``.csv`` path, or a list of dicts / `EvalItem`s.
        scorers: Scorers (results keyed by their ids), or a dict name -> scorer.
        target: An `Agent`, a sync or async callable ``input -> output``, or None when
            items carry ``output`` / ``context``. A target may return `TargetOutput`
            (or ``{"output", "context"}``) to hand over its retrieved chunks.
        on_item_complete: Called once per finished item with its `ItemResult` (sync or
            async), after the item is written to ``results_path``. An exception in it
            stops the run (finished items stay written).
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
        min_scored: With thresholds: the share of items (0 to 1) each thresholded scorer
            must have scored; skipped and errored items count against it.
        store_prompts: Keep prompts and sent messages in ``results_path`` (each once);
            False writes compact lines with the judges' responses only.
        shard: ``(i, n)`` (or ``"i/n"``): run only the items whose id hashes to shard i
            of n — a stable, content-independent split, so n processes or machines can
            each run one shard into its own results file and `merge_results` combines
            them.
        max_cost: A cap in USD on this invocation's model calls: once the finished
            calls' cost plus what calls in flight reserved (their prompt tokens and
            ``max_tokens`` — 512 when unset — at the judge's price) would pass it, no
            new call starts and the run stops with `BudgetExceededError`; finished items
            stay in ``results_path``, and ``resume=True`` with a new cap continues.
        progress: Progress bar on stderr; default: only when stderr is a terminal.

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
    import_cpu_before = litellm_import_cpu_s()
    concurrency = integer("concurrency", concurrency)
    model_concurrency = optional_integer("model_concurrency", model_concurrency)
    item_timeout = optional_positive("item_timeout", item_timeout)
    budget = None if max_cost is None else Budget(positive("max_cost", max_cost))
    if min_scored is not None and not 0 <= finite("min_scored", min_scored) <= 1:
        raise ConfigError(f"min_scored must be a share between 0 and 1; got {min_scored!r}")
    shard_spec = parse_shard(shard)
    scorer_map = _scorer_map(scorers)
    thresholds = _checked_thresholds(thresholds, scorer_map)
    call_target = target_caller(target)
    inline_ids = {sid for sid, scorer in scorer_map.items() if scorer.model_free}
    inline = call_target is None and len(inline_ids) == len(scorer_map)
    if results_path is None and resume:
        raise ConfigError("resume=True needs results_path")
    # the batch implementations make no reference cycles, so the GC pauses for them; with
    # other code running (model calls, custom steps) long-lived inputs are kept out of the
    # GC's scans instead
    batched_only = inline and all(scorer.batched for scorer in scorer_map.values())
    kernels = _Kernels()
    try:
        with paused_gc():
            if batched_only and shard_spec is None and not resume:
                items, loaded_ahead = _load_ahead(data, scorer_map, kernels)
            else:
                items, loaded_ahead = select_shard(load_dataset(data), shard_spec), []
        fingerprints = {sid: scorer.fingerprint for sid, scorer in scorer_map.items()}
        results_file = (
            ResultsFile(Path(results_path), resume, store_prompts) if results_path else None
        )
        done, partial = _resume_plans(items, results_file, fingerprints, call_target is not None)
        todo = [item for item in items if item.id not in done]
        bar = Progress(len(todo), progress)
        limiter = anyio.CapacityLimiter(model_concurrency or concurrency * len(scorer_map))
    except BaseException:  # from here on, the try below closes the kernel thread
        kernels.close()
        raise

    async def finish(item: EvalItem, prescored: dict[str, ScoreResult] | None = None) -> None:
        plan = partial.get(item.id)
        if plan is None and prescored is not None and len(prescored) == len(scorer_map):
            result = _batched_item(item, prescored, fingerprints)
        else:
            result = await _run_item(
                item, call_target, scorer_map, item_timeout, plan, inline_ids, prescored
            )
            result.fingerprints = {sid: fingerprints[sid] for sid in result.scorer_results}
        if results_file is not None:
            result = results_file.write(result)
        done[item.id] = result
        bar.advance(result.error is not None)
        if on_item_complete is not None:
            outcome = on_item_complete(result)
            if inspect.isawaitable(outcome):
                await outcome
        if fail_fast and result.error is not None:
            raise ItemFailedError(result)

    gc_mode = paused_gc() if batched_only else frozen_gc()
    try:
        with run_cap(limiter), gc_mode, run_budget(budget) if budget else nullcontext():
            if inline:  # CPU-only scorers and no target: a task per item is pure overhead
                spans = [todo[i : i + _BLOCK] for i in range(0, len(todo), _BLOCK)]
                ahead = deque(loaded_ahead)  # blocks whose kernels are queued or done
                del loaded_ahead
                for k in range(len(spans)):
                    # the next block's kernels run while this one scores
                    while len(ahead) < 2 and k + len(ahead) < len(spans):
                        ahead.append(
                            kernels.submit(_Block(spans[k + len(ahead)], scorer_map, partial))
                        )
                    block = ahead.popleft()
                    await block.ready()
                    for item, scored in zip(block.items, block.score(), strict=True):
                        await finish(item, scored)
                    await anyio.sleep(0)  # let cancellation (Ctrl-C) in
            else:
                await map_bounded(finish, todo, concurrency)
    except JudgeSetupError as exc:
        where = f"; finished items are in {results_path}" if results_path else ""
        exc.args = (f"{exc} The run stopped at the first such failure{where}.",)
        raise
    finally:
        kernels.close()
        bar.close()
        if results_file is not None:
            results_file.close()

    ordered = [done[item.id] for item in items if item.id in done]
    resumed_ids = {item.id for item in items} - {item.id for item in todo}
    summary = summarize(
        ordered,
        list(scorer_map),
        time.perf_counter() - started,
        resumed_ids,
        scales={sid: scorer.scale for sid, scorer in scorer_map.items()},
        carried={
            item_id: {"<target>", *plan.kept.scorer_results}
            for item_id, plan in partial.items()
            if item_id in done
        },
        rescored_for_config=sum(
            plan.config_changed for item_id, plan in partial.items() if item_id in done
        ),
    )
    # a first model call imports litellm (seconds of CPU, once): not the run's pace
    imported = litellm_import_cpu_s() - import_cpu_before
    summary.client_cpu_s = time.process_time() - cpu_started - imported
    return _eval_result(summary, ordered, scorer_map, thresholds, min_scored, results_path)


def _checked_thresholds(
    thresholds: Mapping[str, float] | None, scorers: Mapping[str, Scorer]
) -> dict[str, float]:
    found = {sid: finite(f"thresholds[{sid!r}]", v) for sid, v in (thresholds or {}).items()}
    unknown = sorted(set(found) - set(scorers))
    if unknown:
        raise ConfigError(f"thresholds name unknown scorers {unknown}; scorers: {sorted(scorers)}")
    return found


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


async def _run_item(
    item: EvalItem,
    call_target: Callable[[Any], Awaitable[Any]] | None,
    scorers: dict[str, Scorer],
    item_timeout: float | None,
    plan: ResumePlan | None = None,
    inline: Collection[str] = (),
    prescored: Mapping[str, ScoreResult] | None = None,
) -> ItemResult:
    """One item, start to end (or, resuming with ``plan``, its scorers to re-run); a
    timeout becomes its error, its cut-off calls kept. ``prescored``: results a batch
    implementation already computed (see `_Block.score`)."""
    started = time.perf_counter()
    if plan is None:
        result = ItemResult(item=item, scorer_results=dict(prescored or {}))
        to_run = {sid: s for sid, s in scorers.items() if sid not in result.scorer_results}
    else:
        result = plan.kept.model_copy(update={"scorer_results": dict(plan.kept.scorer_results)})
        to_run = {sid: scorers[sid] for sid in plan.rescore}
    with record_calls() as calls:
        try:
            with anyio.fail_after(item_timeout) if item_timeout is not None else nullcontext():
                await _process(item, result, None if plan else call_target, to_run, inline)
        except TimeoutError:
            result.error = ItemError(phase="timeout", message=f"item took over {item_timeout:g} s")
            counted = {id(c) for c in result.target_calls}
            for scored in result.scorer_results.values():
                counted.update(id(c) for c in scored.judge_calls)
            result.other_calls = [c for c in calls if id(c) not in counted]
    result.scorer_results = {
        sid: result.scorer_results[sid] for sid in scorers if sid in result.scorer_results
    }
    result.duration_s = time.perf_counter() - started
    return result


_DURATION = attrgetter("duration_s")


def _batched_item(
    item: EvalItem,
    scored: dict[str, ScoreResult],
    fingerprints: Mapping[str, str],
) -> ItemResult:
    """The `ItemResult` of an item every scorer's batch implementation scored:
    ``scored`` (the item's own dict, kept) has a result of each scorer, in the scorers'
    order, as `_Block.score` gives them; ``fingerprints`` is by scorer, in that order."""
    fields: dict[str, Any] = {
        "item": item,
        "target_result": None,
        "scorer_results": scored,
        "error": None,
        "duration_s": sum(map(_DURATION, scored.values())),
        "target_calls": [],
        "other_calls": [],
        "fingerprints": dict(fingerprints),
    }
    return trusted(ItemResult, fields)


_BLOCK = 256
"""Items scored together by the batch implementations of model-free scorers."""


class _Block:
    """A block of items for the batch implementations of model-free scorers: their runs,
    and the numeric kernels those share (`Scorer.block_kernels`), which `_Kernels`
    computes in its thread."""

    def __init__(
        self,
        items: Sequence[EvalItem],
        scorers: Mapping[str, Scorer],
        partial: Mapping[str, ResumePlan],
    ) -> None:
        self.items = items
        self._scorers = {sid: s for sid, s in scorers.items() if s.batched}
        self._slots = [i for i, item in enumerate(items) if item.id not in partial]
        self._runs = (
            [
                _scorer_run(items[i], items[i].output, items[i].context, validated=True)
                for i in self._slots
            ]
            if self._scorers
            else []
        )
        self._kernels: dict[Any, Kernel] = {}
        self._values: dict[Any, Any] = {}
        self._done = threading.Event()

    def prepare(self) -> bool:
        """Prepare the kernels (in the scoring thread); whether there are any."""
        if self._runs:
            for scorer in self._scorers.values():
                try:
                    self._kernels.update(scorer.block_kernels(self._runs))
                except Exception:
                    continue  # the batch meets the error where it is handled
        if not self._kernels:
            self._done.set()
        return bool(self._kernels)

    def compute(self, skip: bool = False) -> None:
        """Compute the kernels (in the kernel thread), unless ``skip``."""
        try:
            if not skip:
                self._values = _computed(self._kernels)
        finally:
            self._done.set()

    async def ready(self) -> None:
        """Wait for the kernels."""
        if not self._done.is_set():
            await to_thread.run_sync(self._done.wait)

    def score(self) -> list[dict[str, ScoreResult]]:
        """Per item, the results the scorers' batch implementations give (an item being
        resumed in part, or one a batch leaves out, is scored by the pipeline
        afterwards). A batch that raises leaves the whole block to the pipeline, which
        records the error item by item; so does a kernel that raises (the batch computes
        it again)."""
        found: list[dict[str, ScoreResult]] = [{} for _ in self.items]
        memo: dict[Any, Any] = {}
        for key, value in self._values.items():
            try:
                memo[key] = self._kernels[key].finish(value)
            except Exception:
                continue
        for sid, scorer in self._scorers.items():
            try:
                results = scorer.score_block(self._runs, memo)
            except Exception:
                continue
            for i, scored in zip(self._slots, results, strict=True):
                if scored is not None:
                    found[i][sid] = scored
        return found


class _Kernels:
    """One thread computing the kernels of blocks, in the order they are submitted.

    rapidfuzz releases the GIL while its multi-core ``cpdist`` runs, so the string
    similarities of the blocks ahead are computed while the rows load and while the
    blocks before are scored. The thread starts with the first block that has kernels
    and `close` always ends it (blocks still queued are skipped).
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[_Block | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._submitted = 0  # written by the scoring thread only,
        self._finished = 0  # this one by the kernel thread only: no lost update

    def submit(self, block: _Block) -> _Block:
        """Prepare ``block`` here and queue its kernels for the thread."""
        if block.prepare():
            if self._thread is None:
                # always joined by `close`; a daemon only so that no path missed could
                # keep the interpreter from exiting
                self._thread = threading.Thread(
                    target=self._work, name="scorekit-kernels", daemon=True
                )
                self._thread.start()
            self._submitted += 1
            self._queue.put(block)
        return block

    def _work(self) -> None:
        while (block := self._queue.get()) is not None:
            # whatever happens, the block is marked done (its batch then computes what is
            # missing) and the thread goes on: a later block never waits on a dead thread
            with suppress(BaseException):
                block.compute(skip=self._closing)
            self._finished += 1

    @property
    def pending(self) -> int:
        """Blocks submitted whose kernels are not done yet."""
        return self._submitted - self._finished

    def close(self) -> None:
        """Skip what is still queued and end the thread (again: nothing)."""
        if self._thread is not None:
            self._closing = True
            self._queue.put(None)
            self._thread.join()
            self._thread = None


_AHEAD_WHILE_LOADING = 16
"""Blocks at most whose kernels start while the rows load (each holds its runs)."""


def _load_ahead(
    data: Any, scorers: Mapping[str, Scorer], kernels: _Kernels
) -> tuple[list[EvalItem], list[_Block]]:
    """`load_dataset`, handing each full block of the first items to ``kernels`` as soon
    as it has loaded (while at most two wait there), so that their similarities are
    computed while the other rows load. Returns the items and the blocks handed over,
    the first ones of the run in order."""
    items: list[EvalItem] = []
    blocks: list[_Block] = []
    for item in iter_dataset(data):
        items.append(item)
        if len(items) % _BLOCK:
            continue
        while kernels.pending < 2 and len(blocks) < min(len(items) // _BLOCK, _AHEAD_WHILE_LOADING):
            start = len(blocks) * _BLOCK
            blocks.append(kernels.submit(_Block(items[start : start + _BLOCK], scorers, {})))
    return items, blocks


def _computed(kernels: Mapping[Any, Kernel]) -> dict[Any, Any]:
    """Each kernel's ``compute()`` by key; one that raises is left out."""
    values = {}
    for key, kernel in kernels.items():
        try:
            values[key] = kernel.compute()
        except Exception:
            continue
    return values


def _scorer_run(item: EvalItem, output: Any, context: Any, *, validated: bool) -> ScorerRun:
    """The `ScorerRun` of an item; ``validated``: its fields are checked already (the
    item's own), else (a target's output) they are validated here."""
    fields = {
        "input": item.input,
        "output": output,
        "ground_truth": item.ground_truth,
        "context": context,
        "reference_contexts": item.reference_contexts,
        "reference_context_ids": item.reference_context_ids,
        "claims": item.claims,
        "request_context": {"item_id": item.id, "metadata": item.metadata},
        "run_id": item.id,
    }
    return trusted(ScorerRun, fields, {"_memo": {}}) if validated else ScorerRun(**fields)


def _eval_result(
    summary: RunSummary,
    items: list[ItemResult],
    scorers: Mapping[str, Scorer],
    thresholds: dict[str, float],
    min_scored: float | None,
    results_path: str | os.PathLike[str] | None,
) -> EvalResult:
    scores = {sid: s.mean for sid, s in summary.scorers.items() if sid in scorers}
    failed = []
    for sid, minimum in thresholds.items():
        mean, s = scores.get(sid), summary.scorers.get(sid)
        short = min_scored is not None and s is not None and s.n_scored < min_scored * summary.items
        if mean is None or mean < minimum or short:
            failed.append(sid)
    return EvalResult(
        scores=scores,
        summary=summary,
        items=items,
        thresholds=thresholds,
        min_scored=min_scored,
        passed=None if not thresholds else not failed,
        failed_thresholds=failed,
        results_path=None if results_path is None else str(results_path),
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


async def _process(
    item: EvalItem,
    result: ItemResult,
    call_target: Callable[[Any], Awaitable[Any]] | None,
    scorers: dict[str, Scorer],
    inline: Collection[str] = (),
) -> None:
    """Run the target (unless resuming with its output) and the scorers; ``inline``:
    model-free scorers, run one after another without tasks."""
    output, context = item.output, item.context
    if result.target_result is not None:  # resuming: score the kept target output again
        output = result.target_result.output
        if result.target_result.context is not None:
            context = result.target_result.context
    elif call_target is not None:
        target_started = time.perf_counter()
        with record_calls() as calls:
            try:
                value = await call_target(item.input)
            except JudgeSetupError:
                raise  # a broken judge setup stops the run
            except Exception as exc:
                result.error = ItemError(phase="target", message=f"{type(exc).__name__}: {exc}")
                return
            finally:
                result.target_calls = list(calls)
        target_result = as_target_result(value)
        target_result.duration_s = time.perf_counter() - target_started
        result.target_result = target_result
        output = target_result.output
        if target_result.context is not None:
            context = target_result.context
    # the item's fields are validated already; a target's output is checked here
    run = _scorer_run(item, output, context, validated=call_target is None)

    async def score(sid: str, scorer: Scorer) -> None:
        scorer_started = time.perf_counter()
        try:
            if sid in inline:  # no task, no loop round trip (see Scorer.run_inline)
                outcome = scorer.run_inline(run)
                if not isinstance(outcome, ScoreResult):
                    outcome = await outcome
                result.scorer_results[sid] = outcome
            else:
                result.scorer_results[sid] = await scorer.arun(run)
        except JudgeSetupError:
            raise  # a broken judge setup stops the run
        except Exception as exc:
            result.scorer_results[sid] = scorer.error_result(
                exc, time.perf_counter() - scorer_started
            )

    concurrent = {sid: s for sid, s in scorers.items() if sid not in inline}
    for sid, scorer in scorers.items():
        if sid not in concurrent or len(concurrent) == 1:
            await score(sid, scorer)
    if len(concurrent) > 1:
        async with task_group() as tg:
            for sid, scorer in concurrent.items():
                tg.start_soon(score, sid, scorer)
    for sid, scored in result.scorer_results.items():
        if scored.status == "error":
            result.error = ItemError(phase="score", scorer_id=sid, message=scored.error or "")
            break


__all__ = ["ItemFailedError", "arun_evals", "run_evals"]
