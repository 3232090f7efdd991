"""``scorekit scorers``: the scorer ids and registered context extractors."""

from __future__ import annotations

import argparse
from typing import Any

from scorers import list_context_extractors, scorer_ids

from ._common import import_modules
from ._output import EXIT_OK

PLACE = 20
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    parser = commands.add_parser(
        "scorers", help="list scorer ids and registered context extractors"
    )
    parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (repeatable): list the extractors it registers too",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import_modules(args.imports)
    ids = scorer_ids()
    width = max(len(k) for k in ids)
    print("scorers (ranking metrics with a cutoff take any, e.g. ndcg@5):")
    for sid, description in ids.items():
        print(f"  {sid:<{width}}  {description}")
    print("\ncontext extractors:")
    for name in list_context_extractors():
        print(f"  {name}")
    return EXIT_OK
