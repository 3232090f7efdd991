"""``scorekit synth``: a labelled set from your documents."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from scorers import ConfigError

from ._common import judge_from
from ._output import EXIT_OK

PLACE = 100
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    synth = commands.add_parser(
        "synth", help="write a labelled set (questions, answers, gold passage ids) from documents"
    )
    synth.add_argument(
        "corpus",
        help="a folder of .txt/.md documents, one document, or a .jsonl/.csv/.parquet "
        "of passages with id and text",
    )
    synth.add_argument("--model", help="judge model (litellm string); default $SCOREKIT_MODEL")
    synth.add_argument("--api-base", help="OpenAI-compatible base URL; default $SCOREKIT_API_BASE")
    synth.add_argument("-n", type=int, default=100, help="rows wanted (default 100)")
    synth.add_argument("--out", help="the .jsonl to write (its log goes to OUT.log)")
    synth.add_argument(
        "--kinds",
        nargs="+",
        default=["single", "multi", "paraphrase"],
        choices=["single", "multi", "paraphrase"],
        help="kinds of question (default: all three)",
    )
    synth.add_argument(
        "--language", default="auto", help="auto (the passages') or a code: en, ko, ..."
    )
    synth.add_argument("--seed", type=int, default=0, help="the order passages are drawn in")
    synth.add_argument("--resume", action="store_true", help="continue the run that wrote --out")
    synth.add_argument("--max-cost", type=float, help="stop before spending more USD than this")
    synth.add_argument("--concurrency", type=int, default=16, help="judge steps in flight")
    synth.add_argument(
        "--max-chars", type=int, default=1200, help="longest passage cut from a document"
    )
    synth.add_argument(
        "--passages", help="also write the corpus's passages (id, text) here, to index"
    )
    synth.add_argument(
        "--estimate", action="store_true", help="print calls, tokens and cost; call nothing"
    )
    synth.add_argument("--no-cache", action="store_true", help="do not use the judge cache")
    synth.add_argument("--progress", default="auto", choices=["auto", "bar", "plain", "none"])
    synth.add_argument("--format", choices=["text", "json"], default="text")
    synth.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from scorers._internal import write_atomically

    from .._synthesis import estimate_synthesis, read_corpus, synthesize

    if not args.estimate and not args.out:
        raise ConfigError("synth needs --out FILE.jsonl (or --estimate)")
    args.client_processes = 0
    judge = judge_from(args, {})
    if judge is None:
        raise ConfigError("synth needs a judge model: pass --model or set SCOREKIT_MODEL")
    if args.passages:
        passages = read_corpus(args.corpus, max_chars=args.max_chars)
        text = "".join(
            json.dumps({"id": p.id, "text": p.text, **p.metadata}, ensure_ascii=False) + "\n"
            for p in passages
        )
        write_atomically(Path(args.passages), text.encode("utf-8"), "same content", "passages file")
        print(f"wrote {len(passages)} passages to {args.passages}", file=sys.stderr)
    common = dict(
        kinds=args.kinds,
        language=args.language,
        seed=args.seed,
        concurrency=args.concurrency,
        max_chars=args.max_chars,
    )
    try:
        if args.estimate:
            estimate = estimate_synthesis(args.corpus, judge, args.n, **common)
            print(estimate.model_dump_json(indent=2) if args.format == "json" else estimate.table())
            return EXIT_OK
        result = synthesize(
            args.corpus,
            judge,
            args.n,
            out=args.out,
            resume=args.resume,
            max_cost=args.max_cost,
            progress=args.progress,
            **common,
        )
    finally:
        judge.close()
    if args.format == "json":
        print(
            json.dumps(
                {
                    "summary": result.summary.model_dump(mode="json"),
                    "dropped": [d.model_dump(mode="json") for d in result.dropped],
                },
                indent=2,
            )
        )
    else:
        print(result.table())
        print(
            f"wrote {len(result.rows)} rows to {args.out} (prompts and answers in {args.out}.log)"
        )
    return EXIT_OK
