"""Pass or fail: a run's thresholds against its means, an item's score against its bar.

The same rules wherever a run is looked at — the run itself, a results file read back,
a merged file, the HTML report, ``scorekit run --format json`` — because all of them
read the thresholds from the run's header.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

if TYPE_CHECKING:
    from .._file._header import RunHeader
    from .._file._items import ItemResult
    from ._summaries import RunSummary


EXIT_OK = 0
"""Every threshold passed (or none was set) and no item errored."""
EXIT_THRESHOLD = 1
"""A threshold (or ``--max-drop`` of ``compare``, or ``--min-agreement``) failed."""
EXIT_UNDECIDED = 4
"""A gate could not decide, and so failed: a scorer scored no item, a compared scorer is
missing from a run, no item was scored in both runs, no labels for the judge; also a run
that scored nothing."""


def bounds(values: Sequence[str], flag: str = "--threshold") -> dict[str, float]:
    """``ID=VALUE`` bounds of gates (``--threshold``, ``--max-drop``, the viewer's max
    drop) by scorer id.

    Raises:
        ConfigError: For a value without ``=``, an empty id, or a number that is not a
            finite number (a NaN bound would pass every gate).
    """
    from scorers import ConfigError

    found = {}
    for value in values:
        sid, sep, number = value.partition("=")
        try:
            found[sid] = float(number)
        except ValueError:
            raise ConfigError(
                f"{flag} takes ID=VALUE, e.g. context-recall=0.7; got {value!r}"
            ) from None
        if not sep or not sid:
            raise ConfigError(f"{flag} takes ID=VALUE; got {value!r}")
        if not math.isfinite(found[sid]):
            raise ConfigError(f"{flag} {sid}= needs a finite number; got {number!r}")
    return found


class Verdict(Protocol):
    """A gate's outcome (`Gate`, a comparison's `DropGate`, an `AgreementGate`)."""

    passed: bool
    decided: bool


def gates_exit(gates: Sequence[Verdict]) -> int:
    """1 when a gate failed on its numbers, else 4 when one could not decide, else 0."""
    if any(g.decided and not g.passed for g in gates):
        return EXIT_THRESHOLD
    return EXIT_UNDECIDED if any(not g.decided for g in gates) else EXIT_OK


class Gate(BaseModel):
    """One threshold of a run and whether the run met it.

    Attributes:
        scorer: The scorer id.
        threshold: The minimum mean.
        mean: The scorer's mean over its scored items (None when none was scored).
        n_scored: Items the scorer scored.
        passed: Whether the mean reached the threshold (and, with ``min_scored``, the
            scorer scored that share of the items).
        why: Why it failed, in words ("" when it passed).
        decided: False when the scorer scored no item (all skipped or failed): the gate
            fails, as it has nothing to decide on.
    """

    scorer: str
    threshold: float
    mean: float | None
    n_scored: int
    passed: bool
    why: str = ""
    decided: bool = True


def gates(summary: RunSummary, header: RunHeader | None) -> list[Gate]:
    """Each threshold of ``header`` checked against ``summary``."""
    if header is None:
        return []
    found = []
    for sid, minimum in header.thresholds.items():
        s = summary.scorers.get(sid)
        mean, n_scored = (None, 0) if s is None else (s.mean, s.n_scored)
        why = ""
        if mean is None:
            why = "no item scored"
        elif mean < minimum:
            why = f"mean {mean:.3f} < {minimum:g}"
        elif header.min_scored is not None and n_scored < header.min_scored * summary.items:
            why = f"scored {n_scored} of {summary.items} items (< {header.min_scored:.0%})"
        found.append(
            Gate(
                scorer=sid,
                threshold=minimum,
                mean=mean,
                n_scored=n_scored,
                passed=not why,
                why=why,
                decided=mean is not None,
            )
        )
    return found


def item_status(result: ItemResult, scorer_id: str, header: RunHeader | None) -> str:
    """How one item fared with one scorer: ``"passed"`` or ``"failed"`` (scored at least,
    or under, the item's bar: `RunHeader.item_threshold`), ``"scored"`` (no bar set),
    ``"skipped"``, ``"error"``, or ``"missing"`` (not run)."""
    score = result.scorer_results.get(scorer_id)
    if score is None:
        return "error" if result.error is not None else "missing"
    if score.value is None:
        return score.status
    bar = None if header is None else header.item_threshold(scorer_id)
    if bar is None:
        return "scored"
    return "passed" if score.value >= bar else "failed"
