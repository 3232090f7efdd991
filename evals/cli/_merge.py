"""``scorekit merge``: results files of shards merged into one."""

from __future__ import annotations

import argparse
from typing import Any

from .._results import format_table
from ._output import EXIT_OK

PLACE = 70
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    merge = commands.add_parser("merge", help="merge results files (one per shard) into OUT")
    merge.add_argument("out", help="the merged results file to write (must not exist)")
    merge.add_argument("inputs", nargs="+", metavar="RESULTS", help="results files to merge")
    merge.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._results import summarize
    from .._run._shards import merge_results

    items = merge_results(args.out, *args.inputs)
    scorer_ids = list(dict.fromkeys(sid for item in items for sid in item.scorer_results))
    print(format_table(summarize(items, scorer_ids, 0.0)))
    print(f"\nscorekit: merged {len(args.inputs)} files, {len(items)} items, into {args.out}")
    return EXIT_OK
