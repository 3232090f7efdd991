"""``scorekit power``: what change a set of items can see, and how many items a change
needs, before any comparison is run."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from scorers import MIN_PAIRED, ConfigError, detectable_change, items_needed

from ._output import EXIT_OK

PLACE = 40
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    power = commands.add_parser(
        "power",
        help="the smallest change a set can see, and the items a change needs (80%% power)",
    )
    power.add_argument(
        "results", nargs="?", help="a results file: each scorer's spread over its items"
    )
    power.add_argument("--drop", type=float, help="the change to detect, e.g. 0.05")
    power.add_argument("--sd", type=float, help="the spread of the paired differences")
    power.add_argument("--n", type=int, help="items, with --sd")
    power.add_argument("--scorer", action="append", default=[], help="only these scorers")
    power.add_argument("--format", choices=("text", "json"), default="text")
    power.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.drop is not None and not (math.isfinite(args.drop) and args.drop > 0):
        raise ConfigError(f"--drop must be a number > 0; got {args.drop}")
    if args.results is None:
        if args.sd is None or (args.drop is None and args.n is None):
            raise ConfigError(
                "power needs a results file, or --sd with --drop (items needed) or --n "
                "(detectable change)"
            )
        rows = {"(given)": _row(args.sd, args.n, args.drop, paired=True)}
    else:
        rows = _from_results(args)
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    for name, row in rows.items():
        print(_sentence(name, row))
    print(
        "80% power, two-sided alpha 0.05, paired t-test (noncentral t, n - 1 degrees of "
        f"freedom); no test is made on fewer than {MIN_PAIRED} items"
    )
    return EXIT_OK


def _from_results(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    from .._results import read_results

    items = read_results(args.results)
    rows = {}
    for sid in args.scorer or list(items.summary.scorers):
        values = [v for r in items if sid in r.scorer_results and (v := r.scorer_results[sid].value) is not None]  # fmt: skip
        if len(values) < 2:
            raise ConfigError(f"{sid} scored {len(values)} items of {args.results}; 2 are needed")
        mean = math.fsum(values) / len(values)
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))
        rows[sid] = _row(math.sqrt(2) * sd, len(values), args.drop, paired=False)
    return rows


def _row(sd: float, n: int | None, drop: float | None, paired: bool) -> dict[str, Any]:
    if n is not None and n < 2:
        raise ConfigError(f"--n must be >= 2; got {n}")
    return {
        "sd_difference": sd,
        "assumed_uncorrelated": not paired,
        "n": n,
        "detectable": None if n is None or n < MIN_PAIRED else detectable_change(sd, n),
        "drop": drop,
        "items_needed": None if drop is None else items_needed(sd, drop),
    }


def _sentence(name: str, row: dict[str, Any]) -> str:
    parts = []
    if row["n"] is not None and row["detectable"] is None:
        parts.append(f"{row['n']} items are too few for a paired test ({MIN_PAIRED} needed)")
    elif row["n"] is not None:
        parts.append(f"{row['n']} items can see a change of {row['detectable']:.3f}")
    if row["drop"] is not None:
        parts.append(f"a change of {row['drop']:g} needs about {row['items_needed']:,} items")
    how = (
        "differences' sd {:.3f}, from the per-item spread, runs taken as uncorrelated"
        if row["assumed_uncorrelated"]
        else "differences' sd {:.3f}"
    ).format(row["sd_difference"])
    return f"{name}: {'; '.join(parts)} ({how})"
