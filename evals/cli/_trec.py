"""``scorekit trec``: a TREC run against qrels, as trec_eval computes it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Literal

from ._common import (
    add_resampling_options,
    check_resamples,
)
from ._output import EXIT_OK


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
    add_resampling_options(trec)
    trec.add_argument("--format", choices=("table", "json"), default="table")
    trec.set_defaults(handler=run)


DEFAULT_TREC_METRICS = ("map", "recip_rank", "P_10", "ndcg_cut_10", "recall_100")


def run(args: argparse.Namespace) -> int:
    from scorers import compare_rankings, evaluate_ranking, load_qrels, load_run

    check_resamples(args)
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
