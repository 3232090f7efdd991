"""What ``scorekit run`` prints and the exit code it returns."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, TextIO

from .._results import ErrorRecord, EvalResult
from .._stats._gate import EXIT_OK, EXIT_UNDECIDED, Verdict, gates_exit
from .._stats._gate import EXIT_THRESHOLD as EXIT_THRESHOLD
from ._spelling import for_cli

EXIT_USAGE = 2
"""Bad usage, configuration, data or judge setup: nothing was scored (or the run stopped)."""
EXIT_ITEM_ERRORS = 3
"""Items errored (target, scorer, timeout); wins over ``EXIT_THRESHOLD``."""
EXIT_INTERRUPTED = 130
"""Ctrl-C; finished items are in ``--out``."""

SHOWN_PER_KIND = 3


def exit_code(result: EvalResult, more: Sequence[Verdict] = ()) -> int:
    """The exit code of a finished run (see the ``EXIT_*`` constants): item errors, then
    the gates (`gates_exit`; ``more``: the ``--min-agreement`` gates), then a run in which
    nothing was scored at all."""
    if result.summary.item_errors:
        return EXIT_ITEM_ERRORS
    code = gates_exit([*result.gates(), *more])
    scorers = result.summary.scorers.values()
    if code == EXIT_OK and result.summary.items and scorers:
        if not any(s.n_scored for s in scorers):
            return EXIT_UNDECIDED
    return code


def unscored(result: EvalResult) -> dict[str, str]:
    """Per scorer that scored no item: why (its top skip reasons with counts)."""
    from .._file._items import skip_reasons

    empty = [sid for sid, s in result.summary.scorers.items() if not s.n_scored]
    if not empty or not result.summary.items:
        return {}
    return {sid: skip_reasons(result.iter_items(), sid, words=for_cli) for sid in empty}


def left_out(result: EvalResult) -> dict[str, str]:
    """Per scorer that scored some items and skipped others: the skipped items' count and
    reasons (its mean leaves them out; a ranking measure's query without a relevant
    document is such an item, where trec_eval would count a 0)."""
    from .._file._items import skip_reasons

    found = {}
    for sid, s in result.summary.scorers.items():
        if s.n_scored and s.n_skipped:
            why = skip_reasons(
                (i for i in result.iter_items() if _skipped(i, sid)), sid, words=for_cli
            )
            found[sid] = (
                f"left {s.n_skipped} of {result.summary.items} items out of its mean: {why}"
            )
    return found


def _skipped(item: Any, sid: str) -> bool:
    found = item.scorer_results.get(sid)
    return found is not None and found.status == "skipped"


def error_groups(errors: list[ErrorRecord]) -> dict[tuple[str, str], list[ErrorRecord]]:
    """Errors grouped by (phase, exception type), the largest group first."""
    groups: dict[tuple[str, str], list[ErrorRecord]] = defaultdict(list)
    for error in errors:
        groups[(error.phase, error.kind)].append(error)
    return dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))


def format_errors(errors: list[ErrorRecord], shown: int = SHOWN_PER_KIND) -> str:
    """The error report printed on stderr after the summary."""
    if not errors:
        return ""
    items = len({e.item_id for e in errors})
    lines = [f"errors: {len(errors)} on {items} item(s)"]
    for (phase, kind), group in error_groups(errors).items():
        lines.append(f"  {kind} in {phase} × {len(group)}")
        for error in group[:shown]:
            where = f"item {error.item_id!r}"
            if error.scorer_id:
                where += f", scorer {error.scorer_id}"
            message = for_cli(" ".join(error.message.split()))
            if len(message) > 300:
                message = message[:299] + "…"
            lines.append(f"    {where}: {message}")
        if len(group) > shown:
            lines.append(f"    ... and {len(group) - shown} more (all in --format json / --out)")
    return "\n".join(lines)


def item_rows(result: EvalResult) -> list[dict[str, Any]]:
    """One row per item for CI bots: id, each scorer's score and status (``passed`` /
    ``failed`` against the item bar), and whether the item passed them all."""
    rows = []
    for item in result.iter_items():
        scores, statuses = {}, {}
        for sid in result.summary.scorers:
            score = item.scorer_results.get(sid)
            scores[sid] = score.score if score is not None and score.status == "scored" else None
            statuses[sid] = result.item_status(item, sid)
        failing = {"failed", "error", "missing"}
        rows.append(
            {
                "id": item.item.id,
                "scores": scores,
                "status": statuses,
                "error": None if item.error is None else item.error.message,
                "passed": not failing & set(statuses.values()) and item.error is None,
            }
        )
    return rows


def print_run(
    result: EvalResult,
    fmt: str,
    out: TextIO | None = None,
    by: Sequence[str] = (),
    labels: str | None = None,
    min_agreement: float | None = None,
) -> int:
    """Print a finished run as a table (errors on stderr) or as JSON, with its slices by
    each metadata key in ``by`` and the judge's agreement with people (labels in
    ``labels``, gated by ``min_agreement``); the exit code."""
    from .._agreement._agreement import agreement_gates, shown_agreements
    from .._stats._slices import slice_table, slices_json, slicings

    out = sys.stdout if out is None else out
    agreements = shown_agreements(result, labels, needed=min_agreement is not None)
    checks = [] if min_agreement is None else agreement_gates(agreements, min_agreement)
    errors = result.errors()
    slices = slicings(result.iter_items(), by, list(result.summary.scorers)) if by else {}
    if fmt == "json":
        report = {
            "scores": result.scores,
            "passed": result.passed,
            "failed_thresholds": result.failed_thresholds,
            "gates": [g.model_dump(mode="json") for g in result.gates()],
            "items": item_rows(result),
            "summary": result.summary.model_dump(mode="json"),
            "errors": [e.model_dump(mode="json") for e in errors],
            "results_path": result.results_path,
            "unscored": unscored(result),
            "left_out": left_out(result),
            "agreement": [a.model_dump(mode="json") for a in agreements],
            "agreement_gates": [g.model_dump(mode="json") for g in checks],
            "exit_code": exit_code(result, checks),
        }
        if slices:
            report["slices"] = {key: slices_json(groups) for key, groups in slices.items()}
        print(json.dumps(report, indent=2), file=out)
    else:
        print(result.table(), file=out)
        for key, groups in slices.items():
            print(f"\n{slice_table(key, groups)}", file=out)
        if errors:
            print(format_errors(errors), file=sys.stderr)
        for sid, why in unscored(result).items():
            print(
                f"scorekit: {sid} scored none of the {result.summary.items} items: {why}",
                file=sys.stderr,
            )
        for sid, why in left_out(result).items():
            print(f"scorekit: {sid} {why}", file=sys.stderr)
        print_agreement(agreements, checks, out)
    return exit_code(result, checks)


def print_agreement(
    agreements: Sequence[Any], checks: Sequence[Any], out: TextIO, run: str = ""
) -> None:
    """The judge's agreement with people, one line per judged scorer, then each
    ``--min-agreement`` gate's verdict."""
    where = f"{run}: " if run else ""
    if agreements:
        print(
            f"\n{where}judge agreement with people (label verdicts with `scorekit view`):", file=out
        )
        for a in agreements:
            print(f"  {a.line()}", file=out)
    for gate in checks:
        head = f"{where}{gate.scorer or 'the run'} min agreement κ >= {gate.min_kappa:g}"
        if gate.passed:
            print(f"{head}: passed (κ {gate.kappa:.3f}, {gate.n} labels)", file=out)
        elif gate.decided:
            print(f"{head}: FAILED ({gate.why})", file=out)
        else:
            print(f"{head}: UNDECIDED, fails ({gate.why})", file=out)
