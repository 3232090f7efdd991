"""``scorekit run`` and ``scorekit demo``: score a labelled data set (or the embedded quickstart)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scorers import ConfigError, DatasetError, Judge, scorer_by_id

from .._run._options import RunOptions
from ._common import (
    add_run_options,
    check_run_flags,
    import_modules,
    judge_from,
    load_target,
    scorer_options,
)
from ._output import EXIT_OK, print_run

PLACE = 10
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    run_parser = commands.add_parser("run", help="score a labelled data set")
    run_parser.add_argument("data", help="a .jsonl, .json, .csv or .parquet file of items")
    run_parser.add_argument(
        "--scorer",
        action="append",
        required=True,
        metavar="ID",
        help="scorer id (repeatable or comma-separated); see `scorekit scorers`",
    )
    run_parser.add_argument(
        "--target",
        metavar="MODULE:CALLABLE",
        help="function (or Agent) called with each item's input; MODULE may be a path "
        "to a .py file (./my_rag.py:retrieve)",
    )
    run_parser.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first (repeatable), e.g. one that registers a context extractor "
        "named in --option SCORER.context_extractor=NAME",
    )
    run_parser.add_argument(
        "--estimate",
        action="store_true",
        help="print the calls, tokens, cost and wall time the run would take; call no model",
    )
    run_parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="SCORER.KEY=VALUE",
        help="a scorer option (context-precision.per_chunk=true) or a judge one "
        "(judge.temperature=0.2); VALUE is JSON when it parses, else text",
    )
    run_parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="accept a data file with no items (default: exit 2, a wrong path must not pass)",
    )
    add_run_options(run_parser)
    run_parser.set_defaults(handler=run)
    demo = commands.add_parser("demo", help="run the embedded quickstart (no API key needed)")
    add_run_options(demo)
    demo.set_defaults(handler=run)


def _chosen(args: argparse.Namespace, judge: Judge | None, options: dict[str, dict]) -> list:
    wanted = [s.strip() for value in args.scorer for s in value.split(",") if s.strip()]
    unknown = sorted(set(options) - set(wanted))
    if unknown:
        raise ConfigError(f"--option names {unknown}, which are not among --scorer {wanted}")
    chosen = []
    for sid in wanted:
        try:
            chosen.append(scorer_by_id(sid, judge, options.get(sid)))
        except ConfigError as exc:
            where = f" (from --option {sid}.*)" if sid in options else ""
            raise ConfigError(f"{exc}{where}") from None
    return chosen


def _estimate(args: argparse.Namespace, items: list, chosen: list, target: Any) -> int:
    from .._estimate import estimate_run
    from .._run._shards import parse_shard, select_shard

    if target is not None:
        raise ConfigError("--estimate scores the items' own output/context: drop --target")
    estimate = estimate_run(
        select_shard(items, parse_shard(args.shard)), chosen, concurrency=args.concurrency
    )
    if args.format == "json":
        print(estimate.model_dump_json(indent=2))
    else:
        print(estimate.table())
    return EXIT_OK


def _agreement(args: argparse.Namespace) -> dict[str, Any]:
    return {"labels": args.labels, "min_agreement": args.min_agreement}


def _refuse_empty(count: int, args: argparse.Namespace) -> None:
    if not count and not args.allow_empty:  # a wrong path in CI must not pass
        raise DatasetError(
            f"no items in {args.data}; check the path (or pass --allow-empty to accept "
            "an empty data set)"
        )


def run(args: argparse.Namespace) -> int:
    check_run_flags(args)
    options = scorer_options(getattr(args, "option", []))
    judge = judge_from(args, options.pop("judge", {}))
    try:
        common: dict[str, Any] = RunOptions.from_flags(args)
        if args.command == "demo":
            from .. import quickstart

            if judge is None:
                print(
                    "scorekit demo: BM25 over the embedded corpus, model-free scorers "
                    "(add --model to include the LLM scorers)\n",
                    file=sys.stderr,
                )
            return print_run(
                quickstart.run(judge, limit=args.limit, **common),
                args.format,
                by=args.by,
                **_agreement(args),
            )

        from .._data import load_dataset
        from .._run._runner import run_evals

        import_modules(args.imports)
        target = load_target(args.target)  # first: it may register context extractors
        chosen = _chosen(args, judge, options)
        if args.out and args.limit is None and not args.estimate:
            # a results file holds the items: stream the data, keep none in memory
            result = run_evals(args.data, chosen, target, keep_items=False, **common)
            _refuse_empty(result.summary.items, args)
            return print_run(result, args.format, by=args.by, **_agreement(args))
        items = load_dataset(args.data)
        _refuse_empty(len(items), args)
        if args.by:  # a misspelt key is refused before anything is scored
            from .._stats._slices import check_keys

            check_keys({key for item in items for key in item.metadata}, args.by)
        if args.limit is not None:
            items = items[: args.limit]
        if args.estimate:
            return _estimate(args, items, chosen, target)
        result = run_evals(items, chosen, target, **common)
        return print_run(result, args.format, by=args.by, **_agreement(args))
    finally:
        if judge is not None:
            judge.close()
