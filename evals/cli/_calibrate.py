"""``scorekit calibrate``: a scorer's verdicts against human labels."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from scorers import ConfigError, scorer_by_id

from ._common import judge_from
from ._output import EXIT_OK

PLACE = 60
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    cal = commands.add_parser(
        "calibrate", help="agreement of a scorer's verdicts with human labels"
    )
    cal.add_argument(
        "data",
        help="labelled rows (.jsonl/.json): claim rows or chunk rows; WiCE as is; or the "
        "labels people made in `scorekit view` (a folder or its scorekit-labels.sqlite)",
    )
    cal.add_argument(
        "--scorer",
        default="context-recall",
        help="context-recall (claims), context-precision or context-utilization (chunks)",
    )
    cal.add_argument(
        "--model", action="append", help="judge model; repeat it to compare judges side by side"
    )
    cal.add_argument("--api-base", help="OpenAI-compatible base URL; default $SCOREKIT_API_BASE")
    cal.add_argument(
        "--partial-as", choices=("supported", "not_supported"), default="not_supported"
    )
    cal.add_argument("--limit", type=int, metavar="N", help="only the first N rows")
    cal.add_argument(
        "--disagreements", metavar="PATH", help="write the disagreeing rows (JSON lines)"
    )
    cal.add_argument("--concurrency", type=int, default=16)
    cal.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    cal.add_argument("--format", choices=("table", "json"), default="table")
    cal.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._calibrate import calibrate, calibration_rows
    from .._calibration import calibration_table

    models = args.model or (
        [os.environ["SCOREKIT_MODEL"]] if os.environ.get("SCOREKIT_MODEL") else []
    )
    if not models:
        raise ConfigError("calibrate needs a judge model: pass --model or set SCOREKIT_MODEL")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be an integer >= 1; got {args.limit}")
    rows = calibration_rows(args.data, args.scorer)[: args.limit]
    results = []
    for model in models:
        args.model, args.client_processes = model, 0
        judge = judge_from(args, {})
        assert judge is not None
        try:
            scorer = scorer_by_id(args.scorer, judge)
            results.append(
                calibrate(scorer, rows, partial_as=args.partial_as, concurrency=args.concurrency)
            )
        finally:
            judge.close()
    # the table first: a file that cannot be written must not cost the measurements
    if args.format == "json":
        print(json.dumps([r.model_dump(mode="json") for r in results], indent=2))
    else:
        print(calibration_table(results))
    if args.disagreements:
        for index, (model, result) in enumerate(zip(models, results, strict=True)):
            path = Path(args.disagreements)
            if len(results) > 1:
                path = path.with_name(f"{path.stem}.{index}{path.suffix}")
            written = result.write_disagreements(path)
            print(
                f"scorekit: {len(result.disagreements)} disagreements of {model} in {written}",
                file=sys.stderr,
            )
    return EXIT_OK
