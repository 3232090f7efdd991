"""What happens to each item of a run as it finishes, and what the run remembers of it."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence

from scorers import Scored, ScorekitError, Scorer
from scorers._internal import Job, Outcome, ScoredBlock, as_results

from .._file._jsonl import ResultsFile
from .._results import CallTotals, ItemResult, RunSummary
from .._stats._summarize import EVERYTHING, SummaryBuilder
from ._jobs import Pending, item_result
from ._options import RunOptions
from ._progress import Progress
from ._resume import ResumePlan


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


class Finish:
    """Each finished item, in order: its `ItemResult` is written, counted in the summary,
    kept (``keep_items``), counted on the progress bar and handed to the hook; a failure
    stops the run under ``fail_fast``. Items an earlier run finished are counted with
    `resumed`.

    Attributes:
        kept: The kept results by item id (empty unless ``keep_items``).
    """

    def __init__(
        self,
        scorers: Mapping[str, Scorer],
        fingerprints: Mapping[str, str],
        opts: RunOptions,
        results_file: ResultsFile | None,
        bar: Progress,
        hook: ItemHook | None,
    ) -> None:
        self.scorers, self.order = scorers, list(scorers)
        self.fingerprints, self.opts = fingerprints, opts
        self.scorer_ids = {sid: s.id for sid, s in scorers.items()}
        self.results_file, self.bar, self.hook = results_file, bar, hook
        self.scales = {sid: s.scale for sid, s in scorers.items() if s.scale != 1.0}
        self.summary = SummaryBuilder(self.order, {sid: s.scale for sid, s in scorers.items()})
        self.kept: dict[str, ItemResult] = {}
        self.resumed = self.rescored = self.rescored_for_config = 0
        self.partial: dict[str, ResumePlan] = {}

    def resumed_whole(self, results: Sequence[ItemResult]) -> None:
        """Count items taken whole from the results file (none of their calls are ours)."""
        for result in results:
            self.summary.add(result, EVERYTHING)
            if self.opts.keep_items:
                self.kept[result.item.id] = result
        self.resumed += len(results)

    async def __call__(self, scored: Scored) -> None:
        result = item_result(
            scored, self.order, self.fingerprints, self.opts.item_timeout, self.scales
        )
        if self.results_file is not None:
            result = self.results_file.write(result)
        pending: Pending = scored.job.key
        old: frozenset[str] | tuple[()] = ()
        if pending.kept is not None:  # resumed in part: the kept results' calls are not ours
            old = frozenset(("<target>", *pending.kept.scorer_results))
            self.rescored += 1
            plan = self.partial.pop(result.item.id, None)
            self.rescored_for_config += plan.config_changed if plan is not None else 0
        self.summary.add(result, old)
        if self.opts.keep_items:
            self.kept[result.item.id] = result
        self._advance(result)
        if self.hook is not None:
            await self._call_hook(result)
        if self.opts.fail_fast and result.error is not None:
            raise ItemFailedError(result)

    @property
    def plain(self) -> bool:
        """Whether model-free items can be finished a block at once, as plain outcomes
        (`block`): none is kept and no hook wants its `ItemResult`."""
        return not self.opts.keep_items and self.hook is None

    async def block(self, scored: ScoredBlock) -> None:
        """A block the fast paths scored (runs that are `plain`): its items' lines
        written at once, their scores counted, the bar advanced, in order; an item the
        steps scored goes through `__call__` in its place, and one whose line cannot be
        built plainly (details JSON cannot hold) after the lines of its run."""
        run: list[tuple[Pending, dict[str, Outcome]]] = []
        for job, found in zip(scored.jobs, scored.found, strict=True):
            if isinstance(found, Scored):
                await self._plain_items(run, scored.seconds)
                run = []
                await self(found)
            else:
                run.append((job.key, found))
        await self._plain_items(run, scored.seconds)

    async def _plain_items(
        self, run: list[tuple[Pending, dict[str, Outcome]]], seconds: dict[str, float]
    ) -> None:
        if not run:
            return
        left: list[int] = []
        if self.results_file is not None:
            items = [(pending.item, found) for pending, found in run]
            left = self.results_file.write_outcomes(
                items, seconds, self.scorer_ids, self.fingerprints, self.scales
            )
        if left:  # not plain JSON: written (or failed) as a whole result
            for position in left:
                pending, found = run[position]
                results = as_results(self.scorers, found, seconds)
                duration = sum(result.duration_s for result in results.values())
                await self(Scored(Job(pending), results, duration_s=duration))
            written_whole = set(left)
            run = [entry for position, entry in enumerate(run) if position not in written_whole]
        self.summary.add_outcomes([found for _, found in run])
        self.bar.advance(items=len(run))

    def _advance(self, result: ItemResult) -> None:
        scores = result.scorer_results.values()
        if not result.other_calls and not any(score.judge_calls for score in scores):
            self.bar.advance(result.error is not None, 0, 0.0)  # a model-free item
            return
        calls = CallTotals()
        for call in result.other_calls:
            calls.add(call)
        for score in result.scorer_results.values():
            for call in score.judge_calls:
                calls.add(call)
        self.bar.advance(result.error is not None, calls.model_calls, calls.cost)

    async def _call_hook(self, result: ItemResult) -> None:
        assert self.hook is not None
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

    def finish(self, wall_time_s: float) -> RunSummary:
        """The run's summary."""
        return self.summary.finish(
            wall_time_s, self.resumed, self.rescored, self.rescored_for_config
        )


__all__ = ["Finish", "ItemFailedError", "ItemHook"]
