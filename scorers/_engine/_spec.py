"""What the engine reads of a scorer (the `Scorer` spec) and the fast-path plug-in protocol.

The engine runs scorers; it never imports the `Scorer` class, only this protocol, so
that `Scorer` can delegate its ``arun`` / ``run_many`` to the engine without a cycle.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._steps import PromptStep, Step, StepFn
from .._types import ScorerRun

if TYPE_CHECKING:
    from .._model._judge import Judge

Outcome = tuple[float, str, dict[str, Any]]
"""A fast path's result for one run: the score (scaled), the reason and the details."""

Memo = dict[Hashable, Any]
"""Values the fast paths of one block share (the similarities of its chunk-reference
pairs), computed by whichever plug-in needs them first."""


class FastPath(Protocol):
    """A scorer's vectorised twin: scores a block of runs at once, with the results the
    scorer's steps would give (checked for every registered plug-in by one contract test).

    A plug-in whose cost is small and grows only linearly with its runs (ids, counts) may
    say so with a class attribute ``inline = True``: the engine then scores its blocks on
    the event loop's own thread, ~20% faster per item than in a daemon thread, and a
    Ctrl-C waits for the block in flight. Without it (string similarity: a pair of long
    texts can take seconds) blocks run in a daemon thread that a Ctrl-C abandons.
    """

    def score(self, runs: Sequence[ScorerRun], memo: Memo) -> list[Outcome | None]:
        """One entry per run: its `Outcome`, or None to leave that run to the steps."""
        ...


class ScorerSpec(Protocol):
    """The parts of a scorer the engine runs (`scorers.Scorer` has them)."""

    @property
    def id(self) -> str: ...

    @property
    def judge(self) -> Judge | None: ...

    @property
    def steps(self) -> tuple[Step, ...]: ...

    @property
    def score_fn(self) -> StepFn | None: ...

    @property
    def reason_step(self) -> StepFn | PromptStep[Any] | None: ...

    _fast_path: FastPath | None
    """Set by `with_fast_path` (never by users): not part of the public `Scorer`."""

    def scaled(self, number: float) -> float: ...


def model_free(scorer: ScorerSpec) -> bool:
    """Whether ``scorer`` calls no model: no judge and no `PromptStep`. The engine runs
    such scorers inline, one after another, without a task per item: their steps are CPU
    work. (A function step that awaits slow I/O of its own still works, one item at a
    time.)"""
    fns = [s.fn for s in scorer.steps] + [scorer.reason_step]
    return scorer.judge is None and not any(isinstance(fn, PromptStep) for fn in fns)
