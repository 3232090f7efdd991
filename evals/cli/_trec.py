"""``scorekit trec``: a TREC run against qrels, as trec_eval computes it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Literal

from scorers import ConfigError

from ._common import (
    add_resampling_options,
    check_resamples,
)
from ._output import EXIT_OK
from ._trec_measures import measures


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
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
        help="as trec_eval: official (the default set), all_trec, a family (P, P.5,10, "
        "ndcg_cut.10, iprec_at_recall), a name (map, bpref, P_10, ...) or scorekit's "
        "(ndcg@10, mrr, ...); repeatable, comma lists accepted",
    )
    trec.add_argument(
        "-M",
        "--max-docs",
        type=int,
        metavar="N",
        help="evaluate only each query's top N documents (trec_eval -M)",
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
    add_resampling_options(trec)
    trec.add_argument("--format", choices=("table", "json"), default="table")
    trec.set_defaults(handler=run)


SPECIAL = ("runid", "num_q")
"""Lines of trec_eval's output that are not per-query measures."""
NOT_PER_QUERY = frozenset({"gm_map", *SPECIAL})


def _line(name: str, query: str, value: float | str) -> str:
    if isinstance(value, str):
        shown = value
    elif name.startswith("num_"):
        shown = str(int(value))
    else:
        shown = f"{value:.4f}"
    return f"{name:<22}\t{query}\t{shown}"


def run(args: argparse.Namespace) -> int:
    from scorers import compare_rankings, evaluate_ranking, load_qrels, load_run

    check_resamples(args)
    if args.max_docs is not None and args.max_docs < 1:
        raise ConfigError(f"-M must be an integer >= 1; got {args.max_docs}")
    names, not_computed = measures(args.metric or ["official"])
    if not_computed:
        print(f"scorekit: not computed: {', '.join(not_computed)}", file=sys.stderr)
    metrics = [n for n in names if n not in SPECIAL]
    if not metrics:
        raise ConfigError("-m names no measure scorekit computes")
    qrels = load_qrels(args.qrels)
    missing: Literal["ignore", "zero"] = "zero" if args.complete else "ignore"
    level = args.relevance_level
    runid = ""

    def evaluate(path: str) -> Any:
        run = load_run(path)
        nonlocal runid
        runid = runid or run.runid
        return evaluate_ranking(
            qrels, run, metrics, relevance_level=level, missing=missing, max_docs=args.max_docs
        )

    result = evaluate(args.run)
    comparison = None
    if args.compare:
        comparison = compare_rankings(
            result, evaluate(args.compare), resamples=args.resamples, seed=args.seed
        )
    if args.format == "json":
        print(json.dumps(_report(args, result, runid, comparison), indent=2))
        return EXIT_OK
    _print_lines(args, names, result, runid)
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


def _report(args: argparse.Namespace, result: Any, runid: str, comparison: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "runid": runid,
        "means": result.means,
        "n_queries": result.n_queries,
        "missing_from_run": result.missing_from_run,
        "missing_from_qrels": result.missing_from_qrels,
    }
    if args.q:
        report["per_query"] = result.per_query
    if comparison is not None:
        report["comparison"] = comparison.model_dump(mode="json")
    return report


def _print_lines(args: argparse.Namespace, names: list[str], result: Any, runid: str) -> None:
    """trec_eval's lines: per query with ``-q``, then the ``all`` lines."""
    if args.q:
        for query in sorted(result.per_query):
            for name in names:
                if name not in NOT_PER_QUERY:
                    print(_line(name, query, result.per_query[query][name]))
    specials: dict[str, float | str] = {"runid": runid, "num_q": result.n_queries}
    for name in names:
        print(_line(name, "all", specials[name] if name in SPECIAL else result.means[name]))
