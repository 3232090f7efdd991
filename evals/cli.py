"""The ``scorekit`` command line: ``run``, ``scorers`` and ``demo``."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from scorers import (
    ConfigError,
    Judge,
    JudgeAPIError,
    ScorekitError,
    list_context_extractors,
    scorer_by_id,
    scorer_ids,
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _judge(args: argparse.Namespace) -> Judge | None:
    model = args.model or os.environ.get("SCOREKIT_MODEL")
    if not model:
        return None
    api_base = args.api_base or os.environ.get("SCOREKIT_API_BASE")
    return Judge(
        model,
        api_base=api_base,
        cache=not args.no_cache,
        client_processes=args.client_processes,
    )


def _thresholds(values: Sequence[str], flag: str = "--threshold") -> dict[str, float]:
    found = {}
    for value in values:
        sid, sep, number = value.partition("=")
        try:
            found[sid] = float(number)
        except ValueError:
            raise ConfigError(
                f"{flag} takes ID=VALUE, e.g. context-recall=0.7; got {value!r}"
            ) from None
        if not sep:
            raise ConfigError(f"{flag} takes ID=VALUE; got {value!r}")
    return found


def _load_target(spec: str | None) -> Any:
    if not spec:
        return None
    module_name, sep, attribute = spec.partition(":")
    if not sep:
        raise ConfigError(f"--target takes module:callable, got {spec!r}")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
        target = getattr(module, attribute)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot load target {spec!r}: {exc}") from None
    return target


def _report(result: Any, fmt: str) -> int:
    if fmt == "json":
        print(
            json.dumps(
                {
                    "scores": result.scores,
                    "passed": result.passed,
                    "failed_thresholds": result.failed_thresholds,
                    "summary": result.summary.model_dump(mode="json"),
                    "results_path": result.results_path,
                },
                indent=2,
            )
        )
    else:
        print(result.table())
    if result.passed is False or result.summary.item_errors:
        return EXIT_FAILED
    return EXIT_OK


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="judge model (litellm string); default $SCOREKIT_MODEL")
    parser.add_argument("--api-base", help="OpenAI-compatible base URL; default $SCOREKIT_API_BASE")
    parser.add_argument("--concurrency", type=int, default=8, help="items in flight (default 8)")
    parser.add_argument("--out", help="stream one JSON line per finished item to this file")
    parser.add_argument("--resume", action="store_true", help="keep items already in --out")
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="ID=VALUE",
        help="fail (exit 1) when a scorer's mean is below VALUE",
    )
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    parser.add_argument(
        "--client-processes",
        type=int,
        default=0,
        metavar="N",
        help="run the judge's litellm client in N helper processes (for high --concurrency)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``scorekit``."""
    parser = argparse.ArgumentParser(prog="scorekit", description="Score RAG retrieval and agents.")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="score a labelled data set")
    run.add_argument("data", help="a .jsonl, .json or .csv file of items")
    run.add_argument(
        "--scorer",
        action="append",
        required=True,
        metavar="ID",
        help="scorer id (repeatable or comma-separated); see `scorekit scorers`",
    )
    run.add_argument(
        "--target",
        metavar="MODULE:CALLABLE",
        help="function (or Agent) called with each item's input",
    )
    _add_run_options(run)

    commands.add_parser("scorers", help="list scorer ids and registered context extractors")

    compare = commands.add_parser("compare", help="compare two results files item by item")
    compare.add_argument("baseline", help="results file of the baseline run (--out of `run`)")
    compare.add_argument("candidate", help="results file of the new run")
    compare.add_argument(
        "--max-drop",
        action="append",
        default=[],
        metavar="ID=VALUE",
        help="fail (exit 1) when a scorer's mean falls by more than VALUE",
    )
    compare.add_argument("--format", choices=("table", "json"), default="table")

    demo = commands.add_parser("demo", help="run the embedded quickstart (no API key needed)")
    _add_run_options(demo)
    return parser


def _list_scorers() -> int:
    ids = scorer_ids()
    width = max(len(k) for k in ids)
    print("scorers (ranking metrics take any k, e.g. ndcg@10):")
    for sid, description in ids.items():
        print(f"  {sid:<{width}}  {description}")
    print("\ncontext extractors:")
    for name in list_context_extractors():
        print(f"  {name}")
    return EXIT_OK


def _compare(args: argparse.Namespace) -> int:
    from ._results import compare_runs

    comparison = compare_runs(args.baseline, args.candidate)
    limits = _thresholds(args.max_drop, "--max-drop")
    dropped = [
        sid
        for sid, limit in limits.items()
        if sid not in comparison.scorers or (comparison.scorers[sid].delta or 0.0) < -limit
    ]
    if args.format == "json":
        print(json.dumps({**comparison.model_dump(mode="json"), "failed": dropped}, indent=2))
    else:
        print(comparison.table())
        for sid in dropped:
            print(f"{sid}: dropped by more than {limits[sid]:g} (or missing)")
    return EXIT_FAILED if dropped else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekit`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "scorers":
            return _list_scorers()
        if args.command == "compare":
            return _compare(args)
        from ._runner import run_evals

        judge = _judge(args)
        try:
            common = {
                "concurrency": args.concurrency,
                "results_path": args.out,
                "resume": args.resume,
                "thresholds": _thresholds(args.threshold),
                "progress": False if args.no_progress else None,
            }
            if args.command == "demo":
                from . import quickstart

                if judge is None:
                    print(
                        "scorekit demo: BM25 over the embedded corpus, model-free scorers "
                        "(add --model to include the LLM scorers)\n",
                        file=sys.stderr,
                    )
                result = quickstart.run(judge, **common)
                return _report(result, args.format)

            wanted = [s.strip() for value in args.scorer for s in value.split(",") if s.strip()]
            chosen = [scorer_by_id(sid, judge) for sid in wanted]
            result = run_evals(args.data, chosen, _load_target(args.target), **common)
            return _report(result, args.format)
        finally:
            if judge is not None:
                judge.close()
    except KeyboardInterrupt:
        print("\nscorekit: interrupted; finished items are in --out", file=sys.stderr)
        return 130
    except JudgeAPIError as exc:  # a provider's message may span lines: one line here
        print(f"scorekit: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_USAGE
    except ScorekitError as exc:
        print(f"scorekit: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
