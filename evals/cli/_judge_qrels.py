"""``scorekit judge-qrels``: LLM-judged qrels for the chunks items retrieved."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from scorers import ConfigError

from ._common import judge_from
from ._output import EXIT_ITEM_ERRORS, EXIT_OK

PLACE = 90
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    qrels = commands.add_parser(
        "judge-qrels", help="LLM-judged qrels for the chunks each item retrieved"
    )
    qrels.add_argument(
        "data", help="items with input, ground_truth and context (.jsonl/.json/.csv/.parquet)"
    )
    qrels.add_argument("-o", "--output", required=True, help="TREC qrels file to write")
    qrels.add_argument(
        "--update",
        action="store_true",
        help="update an existing --output: pairs judged now replace its lines, the rest stay",
    )
    qrels.add_argument("--graded", action="store_true", help="grades 0-3 instead of 0/1")
    qrels.add_argument("--model", help="judge model (litellm string); default $SCOREKIT_MODEL")
    qrels.add_argument("--api-base", help="OpenAI-compatible base URL; default $SCOREKIT_API_BASE")
    qrels.add_argument("--concurrency", type=int, default=16, help="pairs judged at once")
    qrels.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    qrels.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    qrels.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from scorers import load_qrels, write_qrels

    from .._qrels import judge_qrels

    if args.concurrency < 1:
        raise ConfigError(f"--concurrency must be an integer >= 1; got {args.concurrency}")
    args.client_processes = 0
    judge = judge_from(args, {})
    if judge is None:
        raise ConfigError("judge-qrels needs a judge model: pass --model or set SCOREKIT_MODEL")
    output = Path(args.output)
    if output.is_dir():
        raise ConfigError(f"--output {output} is a directory; give a file path")
    earlier = load_qrels(output) if args.update and output.exists() else {}
    if not args.update and output.exists() and output.stat().st_size:
        raise ConfigError(
            f"--output {output} exists; it was left as it was. Pass --update to add this "
            "run's judgements to it (pairs judged now replace their lines, the rest stay), "
            "or write to another path"
        )
    try:
        judged = judge_qrels(
            judge,
            args.data,
            graded=args.graded,
            concurrency=args.concurrency,
            progress=False if args.no_progress else None,
        )
    finally:
        judge.close()
    succeeded = judged.judged + judged.cached
    wrote = f"wrote {output}"
    if succeeded or not judged.failed:
        qrels = {
            q: {**earlier.get(q, {}), **judged.qrels.get(q, {})}
            for q in {**earlier, **judged.qrels}
        }
        write_qrels(output, qrels)
    else:
        wrote = f"every pair failed: {output} left as it was"
    print(
        f"{judged.pairs} (item, chunk) pairs: {judged.judged} judged, {judged.cached} from the "
        f"cache, {len(judged.failed)} failed; {len(judged.skipped_items)} items without a "
        f"ground truth skipped; {wrote}"
    )
    for pair, error in list(judged.failed.items())[:3]:
        print(f"  failed {pair.replace(chr(9), ' / ')}: {error}", file=sys.stderr)
    return EXIT_ITEM_ERRORS if judged.failed else EXIT_OK
