"""The ``scorekit`` command line: ``run``, ``demo``, ``compare``, ``trec`` and ``scorers``.

Exit codes: 0 passed, 1 a threshold failed, 2 usage / configuration / data / judge
setup error, 3 items errored, 130 interrupted (see `evals._cli_output`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from scorers import (
    ConfigError,
    Judge,
    JudgeAPIError,
    ScorekitError,
    list_context_extractors,
    scorer_by_id,
    scorer_ids,
)

from ._cli_output import (
    EXIT_INTERRUPTED,
    EXIT_ITEM_ERRORS,
    EXIT_OK,
    EXIT_THRESHOLD,
    EXIT_USAGE,
    print_run,
)
from ._results import format_table

# kept for callers of earlier versions
EXIT_FAILED = EXIT_THRESHOLD


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("scorekit")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "unknown"


def _value(text: str) -> Any:
    """An option value: JSON when it parses (``true``, ``3``, ``["a"]``), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _options(values: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``--option ID.KEY=VALUE`` flags as ``{ID: {KEY: value}}`` (``judge`` for the judge)."""
    found: dict[str, dict[str, Any]] = {}
    for value in values:
        target, sep, assignment = value.partition(".")
        key, eq, raw = assignment.partition("=")
        if not (sep and eq and target and key):
            raise ConfigError(
                f"--option takes SCORER.KEY=VALUE or judge.KEY=VALUE, e.g. "
                f"context-precision.per_chunk=true; got {value!r}"
            )
        found.setdefault(target, {})[key] = _value(raw)
    return found


def _judge(args: argparse.Namespace, options: dict[str, Any]) -> Judge | None:
    model = args.model or os.environ.get("SCOREKIT_MODEL")
    if not model:
        if options:
            raise ConfigError("--option judge.* needs a judge: pass --model")
        return None
    api_base = args.api_base or os.environ.get("SCOREKIT_API_BASE")
    try:
        return Judge(
            model,
            api_base=api_base,
            cache=not args.no_cache,
            client_processes=args.client_processes,
            **options,
        )
    except ConfigError as exc:
        raise ConfigError(f"{exc} (from --model / --option judge.*)") from None


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
        if not sep or not sid:
            raise ConfigError(f"{flag} takes ID=VALUE; got {value!r}")
        if not math.isfinite(found[sid]):
            raise ConfigError(f"{flag} {sid}= needs a finite number; got {number!r}")
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


def _check_flags(args: argparse.Namespace) -> None:
    """Refuse bad flag values by their flag names, before any work."""
    if args.concurrency < 1:
        raise ConfigError(f"--concurrency must be an integer >= 1; got {args.concurrency}")
    if args.client_processes < 0:
        raise ConfigError(f"--client-processes must be >= 0; got {args.client_processes}")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be an integer >= 1; got {args.limit}")
    if args.item_timeout is not None and not (
        math.isfinite(args.item_timeout) and args.item_timeout > 0
    ):
        raise ConfigError(f"--item-timeout must be a finite number > 0; got {args.item_timeout}")
    if args.min_scored is not None and not 0 <= args.min_scored <= 1:
        raise ConfigError(f"--min-scored must be a share between 0 and 1; got {args.min_scored}")
    if args.max_cost is not None and not (math.isfinite(args.max_cost) and args.max_cost > 0):
        raise ConfigError(f"--max-cost must be a finite number > 0 (USD); got {args.max_cost}")
    if args.resume and not args.out:
        raise ConfigError("--resume needs --out FILE (the results file to continue)")
    if args.out:
        out = Path(args.out)
        if out.is_dir():
            raise ConfigError(f"--out {out} is a directory; give a file path")
        if out.exists() and out.stat().st_size and not args.resume:
            raise ConfigError(
                f"--out {out} already exists; add --resume to continue it, or choose another path"
            )


def _run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="judge model (litellm string); default $SCOREKIT_MODEL")
    parser.add_argument("--api-base", help="OpenAI-compatible base URL; default $SCOREKIT_API_BASE")
    parser.add_argument("--concurrency", type=int, default=8, help="items in flight (default 8)")
    parser.add_argument("--out", help="stream one JSON line per finished item to this file")
    parser.add_argument("--resume", action="store_true", help="keep items already in --out")
    parser.add_argument(
        "--no-prompts",
        action="store_true",
        help="leave prompts and sent messages out of --out (compact lines)",
    )
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="ID=VALUE",
        help="fail (exit 1) when a scorer's mean is below VALUE",
    )
    parser.add_argument(
        "--min-scored",
        type=float,
        metavar="SHARE",
        help="with --threshold: also fail unless each thresholded scorer scored this share "
        "of items (0-1; skipped and errored items count against it)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N items")
    parser.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop starting model calls once this run would spend more (finished items stay)",
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help="only shard I of N (items split by a hash of their id), e.g. --shard 0/4",
    )
    parser.add_argument(
        "--item-timeout", type=float, metavar="SECONDS", help="time allowed per item"
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


def _resampling_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--resamples", type=int, default=10_000, help="randomization/bootstrap resamples"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the resampling tests")


def _check_resamples(args: argparse.Namespace) -> None:
    if args.resamples < 1:
        raise ConfigError(f"--resamples must be an integer >= 1; got {args.resamples}")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``scorekit``."""
    parser = argparse.ArgumentParser(
        prog="scorekit",
        description="Score RAG retrieval and agents.",
        epilog="exit codes: 0 passed, 1 threshold failed, 2 usage/config/setup error, "
        "3 items errored, 130 interrupted",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {_version()}")
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
    run.add_argument(
        "--estimate",
        action="store_true",
        help="print the calls, tokens, cost and wall time the run would take; call no model",
    )
    run.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="SCORER.KEY=VALUE",
        help="a scorer option (context-precision.per_chunk=true) or a judge one "
        "(judge.temperature=0.2); VALUE is JSON when it parses, else text",
    )
    _run_options(run)

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
    _resampling_options(compare)
    compare.add_argument("--format", choices=("table", "json"), default="table")

    trec = commands.add_parser(
        "trec", help="evaluate a TREC run against qrels, as trec_eval does (no model)"
    )
    trec.add_argument("qrels", help="TREC qrels file: query_id iteration doc_id grade")
    trec.add_argument("run", help="TREC run file: query_id Q0 doc_id rank score tag")
    trec.add_argument(
        "-m",
        "--metric",
        action="append",
        metavar="NAME",
        help="ndcg@10, map, mrr, precision@10, recall@100, ... or trec_eval's P_10, "
        "ndcg_cut_10, recip_rank, recall_100, Rprec, success_5 (repeatable; default: "
        "map, recip_rank, P_10, ndcg_cut_10, recall_100)",
    )
    trec.add_argument("-q", action="store_true", help="per-query lines too, as trec_eval -q")
    trec.add_argument(
        "-l",
        "--relevance-level",
        type=float,
        default=1.0,
        metavar="LEVEL",
        help="grade from which a document is relevant (default 1, as trec_eval -l)",
    )
    trec.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="count queries with qrels but no ranking as 0 (trec_eval -c); default: leave "
        "them out, as trec_eval and pytrec_eval do",
    )
    trec.add_argument(
        "--compare",
        metavar="OTHER_RUN",
        help="paired significance tests of OTHER_RUN (candidate) against RUN (baseline)",
    )
    _resampling_options(trec)
    trec.add_argument("--format", choices=("table", "json"), default="table")

    cal = commands.add_parser(
        "calibrate", help="agreement of a scorer's verdicts with human labels"
    )
    cal.add_argument(
        "data", help="labelled rows (.jsonl/.json): claim rows or chunk rows; WiCE as is"
    )
    cal.add_argument(
        "--scorer",
        default="context-recall",
        help="context-recall (claims) or context-precision (chunks)",
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

    merge = commands.add_parser("merge", help="merge results files (one per shard) into OUT")
    merge.add_argument("out", help="the merged results file to write (must not exist)")
    merge.add_argument("inputs", nargs="+", metavar="RESULTS", help="results files to merge")

    report = commands.add_parser(
        "report", help="one self-contained HTML page of a results file (no network)"
    )
    report.add_argument("results", help="results file (--out of `run`)")
    report.add_argument("-o", "--output", help="HTML file to write (default: RESULTS.html)")
    report.add_argument("--compare", metavar="BASELINE", help="a baseline results file")
    report.add_argument("--no-prompts", action="store_true", help="leave prompts out")
    report.add_argument("--title", default="scorekit report")

    qrels = commands.add_parser(
        "judge-qrels", help="LLM-judged qrels for the chunks each item retrieved"
    )
    qrels.add_argument(
        "data", help="items with input, ground_truth and context (.jsonl/.json/.csv)"
    )
    qrels.add_argument("-o", "--output", required=True, help="TREC qrels file to write")
    qrels.add_argument("--graded", action="store_true", help="grades 0-3 instead of 0/1")
    qrels.add_argument("--model", help="judge model (litellm string); default $SCOREKIT_MODEL")
    qrels.add_argument("--api-base", help="OpenAI-compatible base URL; default $SCOREKIT_API_BASE")
    qrels.add_argument("--concurrency", type=int, default=16, help="pairs judged at once")
    qrels.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    qrels.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    demo = commands.add_parser("demo", help="run the embedded quickstart (no API key needed)")
    _run_options(demo)
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

    for flag, path in (("baseline", args.baseline), ("candidate", args.candidate)):
        if not Path(path).is_file():
            raise ConfigError(f"{flag} {path} is not a file")
    limits = _thresholds(args.max_drop, "--max-drop")
    _check_resamples(args)
    comparison = compare_runs(
        args.baseline, args.candidate, resamples=args.resamples, seed=args.seed
    )
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
    return EXIT_THRESHOLD if dropped else EXIT_OK


DEFAULT_TREC_METRICS = ("map", "recip_rank", "P_10", "ndcg_cut_10", "recall_100")


def _trec(args: argparse.Namespace) -> int:
    from scorers import compare_rankings, evaluate_ranking, load_qrels, load_run

    _check_resamples(args)
    metrics = args.metric or list(DEFAULT_TREC_METRICS)
    qrels = load_qrels(args.qrels)
    missing: Literal["ignore", "zero"] = "zero" if args.complete else "ignore"
    level = args.relevance_level

    def evaluate(path: str) -> Any:
        return evaluate_ranking(
            qrels, load_run(path), metrics, relevance_level=level, missing=missing
        )

    result = evaluate(args.run)
    comparison = None
    if args.compare:
        comparison = compare_rankings(
            result, evaluate(args.compare), resamples=args.resamples, seed=args.seed
        )
    if args.format == "json":
        report: dict[str, Any] = {
            "means": result.means,
            "n_queries": result.n_queries,
            "missing_from_run": result.missing_from_run,
            "missing_from_qrels": result.missing_from_qrels,
        }
        if args.q:
            report["per_query"] = result.per_query
        if comparison is not None:
            report["comparison"] = comparison.model_dump(mode="json")
        print(json.dumps(report, indent=2))
        return EXIT_OK
    if args.q:
        for query in sorted(result.per_query):
            for metric in metrics:
                print(f"{metric:<22}\t{query}\t{result.per_query[query][metric]:.4f}")
    print(f"{'num_q':<22}\tall\t{result.n_queries}")
    for metric in metrics:
        print(f"{metric:<22}\tall\t{result.means[metric]:.4f}")
    if result.missing_from_run:
        print(
            f"scorekit: {len(result.missing_from_run)} queries with qrels are not in the run "
            f"({'counted as 0' if args.complete else 'left out; -c counts them as 0'})",
            file=sys.stderr,
        )
    if comparison is not None:
        print()
        print(comparison.table())
    return EXIT_OK


def _calibrate(args: argparse.Namespace) -> int:
    from ._calibrate import _rows, calibrate, calibration_table

    models = args.model or (
        [os.environ["SCOREKIT_MODEL"]] if os.environ.get("SCOREKIT_MODEL") else []
    )
    if not models:
        raise ConfigError("calibrate needs a judge model: pass --model or set SCOREKIT_MODEL")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be an integer >= 1; got {args.limit}")
    rows = _rows(args.data)[: args.limit]
    results = []
    for model in models:
        args.model, args.client_processes = model, 0
        judge = _judge(args, {})
        assert judge is not None
        try:
            scorer = scorer_by_id(args.scorer, judge)
            results.append(
                calibrate(scorer, rows, partial_as=args.partial_as, concurrency=args.concurrency)
            )
        finally:
            judge.close()
    if args.disagreements:
        for index, result in enumerate(results):
            path = Path(args.disagreements)
            if len(results) > 1:
                path = path.with_name(f"{path.stem}.{index}{path.suffix}")
            result.write_disagreements(path)
    if args.format == "json":
        print(json.dumps([r.model_dump(mode="json") for r in results], indent=2))
    else:
        print(calibration_table(results))
    return EXIT_OK


def _merge(args: argparse.Namespace) -> int:
    from ._results import summarize
    from ._shards import merge_results

    items = merge_results(args.out, *args.inputs)
    scorer_ids = list(dict.fromkeys(sid for item in items for sid in item.scorer_results))
    print(format_table(summarize(items, scorer_ids, 0.0)))
    print(f"\nscorekit: merged {len(args.inputs)} files, {len(items)} items, into {args.out}")
    return EXIT_OK


def _report_command(args: argparse.Namespace) -> int:
    from ._results import read_results
    from ._results._html import render_report, write_report

    items = read_results(args.results)
    baseline = read_results(args.compare) if args.compare else None
    output = Path(args.output) if args.output else Path(args.results).with_suffix(".html")
    if output.is_dir():
        raise ConfigError(f"--output {output} is a directory; give a file path")
    page = render_report(items, baseline=baseline, prompts=not args.no_prompts, title=args.title)
    try:
        written = write_report(output, page)
    except OSError as exc:
        raise ConfigError(f"cannot write --output {output}: {exc.strerror or exc}") from None
    print(f"scorekit: wrote {written} ({len(items)} items, {written.stat().st_size:,} bytes)")
    return EXIT_OK


def _judge_qrels(args: argparse.Namespace) -> int:
    from scorers import write_qrels

    from ._qrels import judge_qrels

    if args.concurrency < 1:
        raise ConfigError(f"--concurrency must be an integer >= 1; got {args.concurrency}")
    args.client_processes = 0
    judge = _judge(args, {})
    if judge is None:
        raise ConfigError("judge-qrels needs a judge model: pass --model or set SCOREKIT_MODEL")
    output = Path(args.output)
    if output.is_dir():
        raise ConfigError(f"--output {output} is a directory; give a file path")
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
    try:
        write_qrels(output, judged.qrels)
    except OSError as exc:
        raise ConfigError(f"cannot write --output {output}: {exc.strerror or exc}") from None
    print(
        f"{judged.pairs} (item, chunk) pairs: {judged.judged} judged, {judged.cached} from the "
        f"cache, {len(judged.failed)} failed; {len(judged.skipped_items)} items without a "
        f"ground truth skipped; wrote {output}"
    )
    for pair, error in list(judged.failed.items())[:3]:
        print(f"  failed {pair.replace(chr(9), ' / ')}: {error}", file=sys.stderr)
    return EXIT_ITEM_ERRORS if judged.failed else EXIT_OK


def _scorers(args: argparse.Namespace, judge: Judge | None, options: dict[str, dict]) -> list:
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


def _execute(args: argparse.Namespace) -> int:
    _check_flags(args)
    options = _options(getattr(args, "option", []))
    judge = _judge(args, options.pop("judge", {}))
    try:
        common: dict[str, Any] = {
            "concurrency": args.concurrency,
            "results_path": args.out,
            "resume": args.resume,
            "thresholds": _thresholds(args.threshold),
            "min_scored": args.min_scored,
            "item_timeout": args.item_timeout,
            "store_prompts": not args.no_prompts,
            "shard": args.shard,
            "max_cost": args.max_cost,
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
            return print_run(quickstart.run(judge, limit=args.limit, **common), args.format)

        from ._data import load_dataset
        from ._runner import run_evals

        chosen = _scorers(args, judge, options)
        target = _load_target(args.target)
        items = load_dataset(args.data)
        if args.limit is not None:
            items = items[: args.limit]
        if args.estimate:
            from ._estimate import estimate_run
            from ._shards import parse_shard, select_shard

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
        return print_run(run_evals(items, chosen, target, **common), args.format)
    finally:
        if judge is not None:
            judge.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``scorekit`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "scorers":
            return _list_scorers()
        if args.command == "compare":
            return _compare(args)
        if args.command == "trec":
            return _trec(args)
        if args.command == "judge-qrels":
            return _judge_qrels(args)
        if args.command == "report":
            return _report_command(args)
        if args.command == "merge":
            return _merge(args)
        if args.command == "calibrate":
            return _calibrate(args)
        return _execute(args)
    except KeyboardInterrupt:
        where = "; finished items are in --out" if getattr(args, "out", None) else ""
        print(f"\nscorekit: interrupted{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except JudgeAPIError as exc:  # a provider's message may span lines: one line here
        print(f"scorekit: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_USAGE
    except ScorekitError as exc:
        print(f"scorekit: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
