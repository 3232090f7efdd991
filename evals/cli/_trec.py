"""``scorekit trec``: a TREC run against qrels, as trec_eval computes it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Literal

from scorers import ConfigError, DatasetError
from scorers._internal import trec_names

from ._common import (
    add_resampling_options,
    check_resamples,
)
from ._output import EXIT_OK

PLACE = 50
"""Where the command stands in ``scorekit --help``."""


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
        help="as trec_eval: official (the default set), all_trec, set, a family with "
        "parameters (P.5,10, ndcg_cut.10, ndcg.1=3,2=9, rbp.p=0.8), a measure (map, bpref) "
        "or scorekit's names (ndcg@10, mrr, P_10); repeatable, comma lists accepted",
    )
    trec.add_argument(
        "-M",
        "--max-docs",
        type=int,
        metavar="N",
        help="evaluate only each query's top N documents (trec_eval -M)",
    )
    trec.add_argument("-q", action="store_true", help="per-query lines too, as trec_eval -q")
    trec.add_argument("-n", action="store_true", help="no summary lines (trec_eval -n)")
    trec.add_argument(
        "-J", action="store_true", help="drop unjudged documents first (trec_eval -J)"
    )
    trec.add_argument(
        "-N",
        "--collection-size",
        type=int,
        default=0,
        metavar="N",
        help="documents in the collection, for utility (trec_eval -N)",
    )
    trec.add_argument(
        "-l",
        "--relevance-level",
        type=_integer_level,
        default=1,
        metavar="LEVEL",
        help="grade from which a document is relevant (an integer, default 1: trec_eval -l)",
    )
    trec.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="count queries with qrels but no ranking as 0 (trec_eval -c); without it a "
        "judged query missing from the run is an error, as in trec_eval 10",
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
NOT_PER_QUERY = frozenset({"gm_map", "gm_bpref", *SPECIAL})


def _integer_level(text: str) -> int:
    """``-l`` as trec_eval reads it: the integer its number starts with (``2.5`` is 2,
    said on stderr)."""
    try:
        level = int(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a relevance level is an integer, e.g. -l 2"
        ) from None
    if float(text) != level:
        print(f"scorekit: -l {text} read as {level}, as trec_eval reads it", file=sys.stderr)
    return level


def _is_relstring(name: str) -> bool:
    return name == "relstring" or name.startswith("relstring_")


def _line(name: str, query: str, value: float | str) -> str:
    if isinstance(value, str):
        shown = value
    elif value != value:  # NaN: trec_eval prints the 0/0 it computed as -nan
        shown = "  -nan"
    elif name.startswith("num_"):
        shown = str(int(value))
    else:
        shown = f"{value:6.4f}"
    return f"{name:<22}\t{query}\t{shown}"


def run(args: argparse.Namespace) -> int:
    from scorers import compare_rankings, evaluate_ranking, load_qrels, load_run

    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:  # ids with bytes that are not UTF-8 are printed as read
        reconfigure(errors="surrogateescape")
    check_resamples(args)
    if args.max_docs is not None and args.max_docs < 0:
        raise ConfigError(f"-M must be an integer >= 0; got {args.max_docs}")
    if args.relevance_level < 0:
        print(
            f"scorekit: with -l {args.relevance_level} a document the qrels do not judge counts "
            "as relevant in every measure; trec_eval 10 counts it in some and not in others "
            "(docs/ir.md, deliberate differences)",
            file=sys.stderr,
        )
    names = trec_names(args.metric or ["official"])
    metrics = [n for n in names if n not in SPECIAL]
    if not metrics:
        raise ConfigError("-m names no measure to compute, e.g. -m map")
    qrels = dict(sorted(load_qrels(args.qrels).items()))  # trec_eval's query order
    missing: Literal["ignore", "zero"] = "zero" if args.complete else "ignore"
    runid = ""

    def evaluate(path: str) -> Any:
        run = load_run(path)
        nonlocal runid
        runid = runid or run.runid
        found = evaluate_ranking(
            qrels,
            run,
            metrics,
            relevance_level=args.relevance_level,
            missing=missing,
            max_docs=args.max_docs,
            judged_only=args.J,
            collection_size=args.collection_size,
        )
        absent = found.missing_from_run
        if absent and not args.complete:
            raise DatasetError(
                f"query {absent[0]!r} has judgements in {args.qrels} but no ranking in "
                f"{path} ({len(absent)} such queries); trec_eval 10 stops here too. Pass -c "
                "to count them as 0, or leave them out of the qrels"
            )
        return found

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
    """trec_eval's lines: per query with ``-q``, then (unless ``-n``) the ``all`` lines."""
    lines = []
    if args.q:
        for i, query in enumerate(result.query_ids):
            for name in names:
                if _is_relstring(name):
                    lines.append(_line(name, query, f"'{result.relstrings[name][i]}'"))
                elif name not in NOT_PER_QUERY:
                    lines.append(_line(name, query, result.columns[name][i]))
    if not args.n:
        specials: dict[str, float | str] = {"runid": runid, "num_q": result.n_queries}
        for name in names:
            if not _is_relstring(name):
                value = specials[name] if name in SPECIAL else result.means[name]
                lines.append(_line(name, "all", value))
    if lines:
        print("\n".join(lines))
