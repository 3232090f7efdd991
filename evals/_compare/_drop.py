"""A comparison's gates: a ``--max-drop`` verdict per scorer (`DropGate`; `drop_gates`
in `_comparison` decides them), and the verdicts as HTML beside each candidate's own
thresholds."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    from .._stats._gate import Gate


class DropGate(BaseModel):
    """One ``--max-drop`` limit of a comparison and its verdict.

    Attributes:
        scorer: The scorer id.
        limit: The largest drop of the paired mean allowed.
        run: The candidate's name ("" with one candidate).
        delta: The paired mean change (None when nothing was paired).
        n_paired: Items scored in both runs.
        passed: Whether the drop stayed within ``limit``.
        decided: False when there was nothing to decide on (no paired item, or the
            scorer is missing from a run): such a gate fails, never passes.
        why: Why it failed, in words ("" when it passed).
        warning: When ``limit`` is below the smallest change these pairs can detect
            (80% power at two-sided α 0.05), how many items could see it; else "".
    """

    scorer: str
    limit: float
    run: str = ""
    delta: float | None
    n_paired: int
    passed: bool
    decided: bool = True
    why: str = ""
    warning: str = ""


def gates_html(gates: Sequence[DropGate]) -> str:
    """The ``--max-drop`` verdicts as a list headed "Gates" ("" without gates)."""
    if not gates:
        return ""
    items = "".join(
        f"<li class='{'pass' if g.passed else 'fail'}'>"
        + (f"{html.escape(g.run)}: " if g.run else "")
        + f"{html.escape(g.scorer)} max drop {g.limit:g}: "
        + (
            "passed"
            if g.passed
            else f"{'FAILED' if g.decided else 'UNDECIDED'}: {html.escape(g.why)}"
        )
        + (f" <span class='muted'>({html.escape(g.warning)})</span>" if g.warning else "")
        + "</li>"
        for g in gates
    )
    return f"<h2>Gates</h2><ul class='gates'>{items}</ul>"


def candidate_gates_html(found: Mapping[str, Sequence[Gate]]) -> str:
    """Each candidate's own thresholds (from its header) and their verdicts ("" without)."""
    items = "".join(
        f"<li class='{'pass' if g.passed else 'fail'}'>{html.escape(run)}: threshold "
        f"{html.escape(g.scorer)} &gt;= {g.threshold:g}: "
        + (
            "passed"
            if g.passed
            else f"{'FAILED' if g.decided else 'UNDECIDED'}: {html.escape(g.why)}"
        )
        + "</li>"
        for run, gates in found.items()
        for g in gates
    )
    return f"<h2>Candidates' thresholds</h2><ul class='gates'>{items}</ul>" if items else ""
