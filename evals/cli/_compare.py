"""``scorekit compare``: two results files compared item by item."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorers import ConfigError

from ._common import (
    add_agreement_options,
    add_resampling_options,
    check_min_agreement,
    check_resamples,
    thresholds,
)
from ._output import gates_exit, print_agreement

if TYPE_CHECKING:
    from .._compare._drop import DropGate


PLACE = 30
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    compare = commands.add_parser(
        "compare", help="compare results files item by item: a baseline and one or more runs"
    )
    compare.add_argument("baseline", help="results file of the baseline run (--out of `run`)")
    compare.add_argument(
        "candidate", nargs="+", help="results file(s) of the new run(s), compared with it"
    )
    compare.add_argument(
        "--max-drop",
        action="append",
        default=[],
        metavar="ID=VALUE",
        help="fail (exit 1) when a scorer's paired mean falls by more than VALUE (in any "
        "candidate); exit 4 when there is nothing to decide on (no item scored in both runs, "
        "or a run without the scorer)",
    )
    compare.add_argument(
        "--html", metavar="PATH", help="also write the comparison as a page, with the gates"
    )
    add_resampling_options(compare)
    add_agreement_options(compare)
    compare.add_argument("--format", choices=("table", "json"), default="table")
    compare.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._compare._comparison import drop_gates
    from .._results import compare_runs

    for flag, path in (("baseline", args.baseline), *(("candidate", c) for c in args.candidate)):
        if not Path(path).is_file():
            raise ConfigError(f"{flag} {path} is not a file")
    limits = thresholds(args.max_drop, "--max-drop")
    check_resamples(args)
    check_min_agreement(args)
    if len(args.candidate) > 1:
        return _many(args, limits)
    comparison = compare_runs(
        args.baseline, args.candidate[0], resamples=args.resamples, seed=args.seed
    )
    _check_limits(
        limits,
        [
            *comparison.scorers,
            *comparison.only_baseline_scorers,
            *comparison.only_candidate_scorers,
        ],
    )
    gates = drop_gates(comparison, limits)
    judged = _judged(args, [args.candidate[0]])
    checks = [c for _, _, found in judged for c in found] + list(comparison.candidate_gates)
    if args.html:
        comparison.to_html(args.html, title="scorekit compare", gates=gates)
    if args.format == "json":
        report = {
            **comparison.model_dump(mode="json"),
            "gates": [g.model_dump(mode="json") for g in gates],
            "failed": [g.scorer for g in gates if not g.passed]
            + [
                f"candidate threshold {g.scorer}"
                for g in comparison.candidate_gates
                if not g.passed
            ],
            **_agreement_json(judged),
            "exit_code": gates_exit([*gates, *checks]),
        }
        print(json.dumps(report, indent=2))
    else:
        print(comparison.table())
        _print_gates(gates)
        _print_candidate_gates(comparison.candidate_gates)
        for _, agreements, found in judged:
            print_agreement(agreements, found, sys.stdout)
    return gates_exit([*gates, *checks])


def _judged(args: argparse.Namespace, candidates: list[str]) -> list[tuple[str, list, list]]:
    """Per candidate: its judge's agreement with people and the ``--min-agreement``
    gates."""
    from .._agreement._agreement import agreement_gates, shown_agreements

    found = []
    for path in candidates:
        agreements = shown_agreements(path, args.labels, needed=args.min_agreement is not None)
        bound = args.min_agreement
        checks = [] if bound is None else agreement_gates(agreements, bound)
        found.append((path, agreements, checks))
    return found


def _agreement_json(judged: list[tuple[str, list, list]]) -> dict[str, Any]:
    return {
        "agreement": {
            path: [a.model_dump(mode="json") for a in agreements] for path, agreements, _ in judged
        },
        "agreement_gates": [
            {"run": path, **g.model_dump(mode="json")} for path, _, found in judged for g in found
        ],
    }


def _print_gates(gates: list[DropGate]) -> None:
    for gate in gates:
        where = f"{gate.run}: " if gate.run else ""
        if gate.warning:
            print(f"scorekit: warning: {where}{gate.warning}", file=sys.stderr)
        if gate.passed:
            print(f"{where}{gate.scorer} max drop {gate.limit:g}: passed")
        elif gate.decided:
            print(f"{where}{gate.scorer} max drop {gate.limit:g}: FAILED ({gate.why})")
        else:
            print(f"{where}{gate.scorer} max drop {gate.limit:g}: UNDECIDED, fails ({gate.why})")


def _print_candidate_gates(found: list[Any], run: str = "") -> None:
    """The candidate's own thresholds (from its header): they count as in the live run."""
    where = f"{run}: " if run else ""
    for gate in found:
        if gate.passed:
            verdict = "passed"
        elif gate.decided:
            verdict = f"FAILED ({gate.why})"
        else:
            verdict = f"UNDECIDED, fails ({gate.why})"
        print(f"{where}candidate threshold {gate.scorer} >= {gate.threshold:g}: {verdict}")


def _check_limits(limits: dict[str, float], known: list[str]) -> None:
    unknown = sorted(set(limits) - set(known))
    if unknown:
        raise ConfigError(
            f"--max-drop names {', '.join(unknown)}, which no run has; "
            f"the runs' scorers are: {', '.join(known) or 'none'}"
        )


def _many(args: argparse.Namespace, limits: dict[str, float]) -> int:
    """A baseline and several candidates: one table per scorer; --max-drop gates each."""
    from .._compare._comparison import drop_gates
    from .._results import RunsComparison, compare_runs

    found = compare_runs(args.baseline, *args.candidate, resamples=args.resamples, seed=args.seed)
    assert isinstance(found, RunsComparison)
    _check_limits(limits, [*found.scorers, *found.not_compared])
    gates = [g for name, pair in found.pairs.items() for g in drop_gates(pair, limits, name)]
    judged = _judged(args, list(args.candidate))
    checks = [c for _, _, found_checks in judged for c in found_checks]
    checks += [g for pair in found.pairs.values() for g in pair.candidate_gates]
    if args.html:
        found.to_html(
            args.html,
            title=f"scorekit compare: {found.baseline} and {len(found.candidates)} runs",
            gates=gates,
        )
    if args.format == "json":
        report = {
            **found.model_dump(mode="json"),
            "gates": [g.model_dump(mode="json") for g in gates],
            "failed": [f"{g.run}: {g.scorer}" for g in gates if not g.passed]
            + [
                f"{name}: candidate threshold {g.scorer}"
                for name, pair in found.pairs.items()
                for g in pair.candidate_gates
                if not g.passed
            ],
            **_agreement_json(judged),
            "exit_code": gates_exit([*gates, *checks]),
        }
        print(json.dumps(report, indent=2))
    else:
        print(found.table())
        _print_gates(gates)
        for name, pair in found.pairs.items():
            _print_candidate_gates(pair.candidate_gates, name)
        for path, agreements, found_checks in judged:
            print_agreement(agreements, found_checks, sys.stdout, run=path)
    return gates_exit([*gates, *checks])
