"""``scorekit compare``: two results files compared item by item."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from scorers import ConfigError

from ._common import (
    add_resampling_options,
    check_resamples,
    thresholds,
)
from ._output import EXIT_OK, EXIT_THRESHOLD


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
        help="fail (exit 1) when a scorer's mean falls by more than VALUE (in any candidate)",
    )
    compare.add_argument(
        "--html", metavar="PATH", help="also write the comparison as a page (several runs)"
    )
    add_resampling_options(compare)
    compare.add_argument("--format", choices=("table", "json"), default="table")
    compare.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._results import compare_runs

    for flag, path in (("baseline", args.baseline), *(("candidate", c) for c in args.candidate)):
        if not Path(path).is_file():
            raise ConfigError(f"{flag} {path} is not a file")
    limits = thresholds(args.max_drop, "--max-drop")
    check_resamples(args)
    if len(args.candidate) > 1:
        return _many(args, limits)
    comparison = compare_runs(
        args.baseline, args.candidate[0], resamples=args.resamples, seed=args.seed
    )
    _check_limits(limits, list(comparison.scorers), "the two runs do not share")
    dropped = [
        sid for sid, limit in limits.items() if (comparison.scorers[sid].delta or 0.0) < -limit
    ]
    if args.format == "json":
        print(json.dumps({**comparison.model_dump(mode="json"), "failed": dropped}, indent=2))
    else:
        print(comparison.table())
        for sid in dropped:
            print(f"{sid}: dropped by more than {limits[sid]:g}")
        for gate in comparison.candidate_gates:
            verdict = "passed" if gate.passed else f"FAILED ({gate.why})"
            print(f"candidate threshold {gate.scorer} >= {gate.threshold:g}: {verdict}")
    return EXIT_THRESHOLD if dropped else EXIT_OK


def _check_limits(limits: dict[str, float], shared: list[str], why: str) -> None:
    unknown = sorted(set(limits) - set(shared))
    if unknown:
        raise ConfigError(
            f"--max-drop names {', '.join(unknown)}, which {why}; "
            f"their shared scorers are: {', '.join(shared) or 'none'}"
        )


def _many(args: argparse.Namespace, limits: dict[str, float]) -> int:
    """A baseline and several candidates: one table per scorer; --max-drop gates each."""
    from .._results import RunsComparison, compare_runs

    found = compare_runs(args.baseline, *args.candidate, resamples=args.resamples, seed=args.seed)
    assert isinstance(found, RunsComparison)
    _check_limits(limits, list(found.scorers), "the runs do not all share")
    dropped = [
        f"{row.run}: {sid}"
        for sid, limit in limits.items()
        for row in found.scorers[sid][1:]
        if (row.delta or 0.0) < -limit
    ]
    if args.html:
        found.to_html(
            args.html, title=f"scorekit compare: {found.baseline} and {len(found.candidates)} runs"
        )
    if args.format == "json":
        print(json.dumps({**found.model_dump(mode="json"), "failed": dropped}, indent=2))
    else:
        print(found.table())
        for what in dropped:
            sid = what.split(": ", 1)[1]
            print(f"{what} dropped by more than {limits[sid]:g}")
    return EXIT_THRESHOLD if dropped else EXIT_OK
