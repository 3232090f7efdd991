"""One way to read a run, in memory or on disk.

`RunView` holds the reading API — ``table``, ``summary_by``, ``errors``, ``gates``,
``item_status``, ``to_pandas``, ``to_html``, the notebook view — written once over what a
run is: its items, its summary and its header. `EvalResult` (what `run_evals` returns)
and `ResultList` (what `read_results` reads back from a results file) are both
`RunView`s, so a run read back does everything the run did.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorers import ConfigError

from .._file._items import ErrorRecord, ItemResult, run_errors
from .._pages._views import to_pandas
from .._stats._gate import Gate, gates, item_status
from .._stats._summaries import RunSummary, format_table, summary_html
from .._stats._summarize import summarize

if TYPE_CHECKING:
    from .._file._header import RunHeader


class RunView:
    """The reading API of a run; a subclass gives ``summary``, ``header``,
    ``thresholds``, ``min_scored``, ``failed_thresholds`` and ``iter_items``."""

    if TYPE_CHECKING:
        header: RunHeader | None

        @property
        def summary(self) -> RunSummary: ...
        @property
        def thresholds(self) -> dict[str, float]: ...
        @property
        def min_scored(self) -> float | None: ...
        @property
        def failed_thresholds(self) -> list[str]: ...
        def iter_items(self) -> Iterator[ItemResult]: ...

    def _all_items(self) -> list[ItemResult]:
        return list(self.iter_items())

    def _repr_html_(self) -> str:
        return summary_html(self.summary)

    def to_pandas(self, wide: bool = False) -> Any:
        """A pandas DataFrame, one row per item × scorer: ``id``, ``scorer``, ``score``
        (None unless scored), ``status``, ``reason``, ``error`` and the item's fields
        (``input``, ``ground_truth``, ``output``, ``context`` as texts,
        ``reference_contexts``, ``reference_context_ids``, ``metadata``), then a column
        per metadata key (``metadata.KEY`` where the key is taken), ready for
        ``groupby``. A scorer that could not run because its item failed first has status
        ``"error"`` and the item's error. With ``wide=True``: one row per item, its
        fields and a column per scorer holding its score (None unless scored) — Ragas'
        ``to_pandas()`` shape. pandas is an optional extra: ``pip install
        'scorekit[pandas]'``.

        Raises:
            ConfigError: When pandas is not installed.
        """
        return to_pandas(self._all_items(), list(self.summary.scorers), wide=wide)

    def summary_by(self, key: str) -> dict[str, RunSummary]:
        """The run's summary per group of items sharing a ``metadata[key]`` value: per
        scorer mean, 95% CI and counts, the same numbers the summary gives for those
        items alone. One group per distinct JSON value, labelled as
        `evals._stats._slices.group_of` says (``"(missing)"`` for items without one);
        numbers by value, then text, the missing last (``scorekit run --by KEY``)."""
        from .._stats._slices import summaries_by

        return summaries_by(self.iter_items(), key, list(self.summary.scorers))

    def to_html(
        self,
        path: str | os.PathLike[str],
        *,
        baseline: RunView | str | os.PathLike[str] | None = None,
        prompts: bool = True,
        title: str = "scorekit report",
        labels: Any = None,
    ) -> Path:
        """Write the run as one self-contained HTML page (see ``scorekit report``).

        Args:
            path: The ``.html`` file to write (an existing file is replaced only when it
                is a page scorekit wrote).
            baseline: Another run (an `EvalResult`, a `read_results` list or a results
                file) to compare with.
            prompts: Keep each judge call's prompt and raw response (collapsed).
            title: The page title.
            labels: Where people's labels of the judge's verdicts are (a `LabelStore`, its
                file or folder; default: beside the results file, else the working
                directory): a run with an LLM judge shows their agreement, or says there
                are no labels for its judge yet.

        Returns:
            The path written.
        """
        from .._agreement._agreement import shown_agreements
        from .._pages._page import write_report
        from ._html import render_report

        base: ResultList | None = None
        if isinstance(baseline, RunView):
            base = ResultList(baseline._all_items())
            base.header = baseline.header
        elif baseline is not None:
            base = read_results(baseline)
        page = render_report(
            self._all_items(),
            summary=self.summary,
            baseline=base,
            prompts=prompts,
            title=title,
            header=self.header,
            agreement=[a.line() for a in shown_agreements(self, labels, needed=False)],
        )
        return write_report(path, page)

    def gates(self) -> list[Gate]:
        """Each threshold with the run's mean and whether it passed (see `Gate`)."""
        return gates(self.summary, self.header)

    def item_status(self, item: ItemResult | str, scorer_id: str) -> str:
        """``"passed"``/``"failed"`` against the item bar (``item_thresholds``, else the
        scorer's threshold), else ``"scored"``, ``"skipped"``, ``"error"``, ``"missing"``."""
        if isinstance(item, str):
            found = next((r for r in self.iter_items() if r.item.id == item), None)
            if found is None:
                raise KeyError(f"no item {item!r} in this run")
            item = found
        return item_status(item, scorer_id, self.header)

    def errors(self) -> list[ErrorRecord]:
        """Every failure of the run (see `ErrorRecord`), in item order (the items are
        read only when the summary counts a failure)."""
        summary = self.summary
        if not summary.item_errors and not any(s.n_error for s in summary.scorers.values()):
            return []
        return run_errors(self.iter_items())

    def table(self) -> str:
        """The per-scorer summary table (what the CLI prints)."""
        return format_table(self.summary, self.thresholds, self.failed_thresholds, self.min_scored)


class ResultList(list, RunView):  # type: ignore[type-arg]
    """The items of a results file (`read_results`): a list of `ItemResult`s that reads
    like the `EvalResult` of the same run — ``summary``, ``scores``, ``passed``,
    ``table()``, ``summary_by()``, ``errors()``, ``gates()``, ``to_pandas()``,
    ``to_html()`` — with the file's ``header`` (None for a file written before headers:
    then no thresholds). Its numbers are computed from the items it holds when asked."""

    header: RunHeader | None = None
    results_path: str | None = None

    def __init__(self, items: Iterable[ItemResult] = ()) -> None:
        super().__init__(items)

    def iter_items(self) -> Iterator[ItemResult]:
        """The items, in the file's order."""
        return iter(self)

    def _all_items(self) -> list[ItemResult]:
        return self

    @property
    def items(self) -> list[ItemResult]:
        """The items (this list itself), as `EvalResult.items`."""
        return self

    @property
    def summary(self) -> RunSummary:
        """Means, 95% confidence intervals, counts, calls, tokens and cost of the items
        (wall time 0: a file does not record it); computed again only when the list
        holds other items."""
        key = tuple(map(id, self))
        cached = self.__dict__.get("_summary")
        if cached is None or cached[0] != key:
            scorer_ids = list(dict.fromkeys(sid for item in self for sid in item.scorer_results))
            cached = self.__dict__["_summary"] = (key, summarize(self, scorer_ids, 0.0))
        return cached[1]

    @property
    def scores(self) -> dict[str, float | None]:
        """Mean score per scorer over scored items (None when none were scored)."""
        return {sid: s.mean for sid, s in self.summary.scorers.items()}

    @property
    def thresholds(self) -> dict[str, float]:
        """The thresholds the run was gated on (from the header)."""
        return dict(self.header.thresholds) if self.header else {}

    @property
    def min_scored(self) -> float | None:
        """The share of items each thresholded scorer had to score (from the header)."""
        return self.header.min_scored if self.header else None

    @property
    def failed_thresholds(self) -> list[str]:
        """Scorer ids whose mean is below their threshold, or that scored too few items."""
        return [gate.scorer for gate in self.gates() if not gate.passed]

    @property
    def passed(self) -> bool | None:
        """Whether every threshold is met (None without thresholds)."""
        return None if not self.thresholds else not self.failed_thresholds

    def __repr__(self) -> str:
        scores = {sid: None if v is None else round(v, 4) for sid, v in self.scores.items()}
        return f"ResultList(items={len(self)}, scores={scores}, passed={self.passed})"


def read_results(path: str | os.PathLike[str], *, mixed: bool = False) -> ResultList:
    """The run a results file holds (written by `run_evals` with ``results_path``): a
    `ResultList` of its `ItemResult`s that reads like the run's `EvalResult` (``table``,
    ``summary_by``, ``errors``, ``to_pandas``, ``to_html``...).

    A file whose items were scored under two configurations of one scorer (a resume
    under another scale, judge or options that did not re-score every item) cannot be
    averaged: it is refused, naming the scorer, what differs and how many items each
    configuration has, unless ``mixed=True`` (each item keeps its ``fingerprints``).

    Raises:
        ConfigError: If the file does not exist, holds no result line (a data set, say)
            or mixes configurations of a scorer.
    """
    from .._file._header import mixed_configurations
    from .._file._jsonl import read_file

    file = Path(path)
    if not file.exists():
        raise ConfigError(f"results file {file} does not exist")
    if file.is_dir():
        raise ConfigError(f"results file {file} is a directory")

    found, _, headers = read_file(file)
    results = ResultList(found.values())
    results.header = headers[-1] if headers else None
    results.results_path = str(file)
    problems = [] if mixed else mixed_configurations(results, headers)
    if problems:
        raise ConfigError(
            f"{file} holds items scored under different configurations, whose scores "
            f"cannot be averaged: {'; '.join(problems)}. Re-score them under one (resume=True "
            "over all of its items, CLI: --resume) or write each configuration to its own "
            "file; in Python, read_results(path, mixed=True) reads it as it is"
        )
    return results
