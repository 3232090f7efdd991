"""How often a judge's claim verdicts agree with WiCE's human labels, for scorekit's prompts.

Runs `evals.calibrate` with ``context-recall``'s verdict step over WiCE's dev set
(``../shared/data/wice/dev.jsonl``: 349 claims, each with its cited page's sentences as
context; ``partially_supported`` counted as ``--partial-as``) and prints accuracy,
precision / recall / F1 of "supported", Cohen's κ and the confusion matrix with bootstrap
95% intervals.

    python benchmarks/judge_agreement.py --model openai/gpt-4o-mini [--api-base URL]
        [--limit N] [--partial-as not_supported] [--write]
    python benchmarks/judge_agreement.py --fake --limit 20   # the rule-based fake judge

``--write`` stores the report in ``benchmarks/results/judge_agreement_<model>.json``.
``--fake`` runs the project's rule-based `FakeLLMServer` judge: a smoke test of the
benchmark, not a measurement of any model.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from evals import calibrate
from scorers import Judge, create_context_recall_scorer

WICE = Path(__file__).resolve().parents[2] / "shared" / "data" / "wice" / "dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", help="litellm model string of the judge")
    parser.add_argument("--api-base", help="OpenAI-compatible base URL")
    parser.add_argument(
        "--fake", action="store_true", help="the rule-based fake judge (smoke test)"
    )
    parser.add_argument("--limit", type=int, help="only the first N rows")
    parser.add_argument(
        "--partial-as", choices=("supported", "not_supported"), default="not_supported"
    )
    parser.add_argument(
        "--data", default=str(WICE), help="WiCE-format rows (default: the shared dev set)"
    )
    parser.add_argument(
        "--write", action="store_true", help="write benchmarks/results/judge_agreement_*.json"
    )
    args = parser.parse_args()
    data = Path(args.data)
    if not data.exists():
        raise SystemExit(
            f"{data} not found: the WiCE dev set lives in ../shared/data (see DATA.md)"
        )
    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    rows = rows[: args.limit] if args.limit else rows

    if args.fake:
        from evals.testing import FakeLLMServer

        with FakeLLMServer() as server:
            result = calibrate(
                create_context_recall_scorer(server.judge()), rows, partial_as=args.partial_as
            )
        label = "rule-based fake judge (not a model)"
    else:
        if not args.model:
            raise SystemExit("give --model (a litellm model string), or --fake for a smoke test")
        judge = Judge(args.model, api_base=args.api_base)
        try:
            result = calibrate(
                create_context_recall_scorer(judge), rows, partial_as=args.partial_as
            )
        finally:
            judge.close()
        label = args.model
    print(
        f"WiCE dev, {len(rows)} claims, partially_supported as {args.partial_as}; judge: {label}\n"
    )
    print(result.table())
    if args.write:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", "fake" if args.fake else args.model)
        out = Path(__file__).parent / "results" / f"judge_agreement_{name}.json"
        out.write_text(result.model_dump_json(indent=2, exclude={"disagreements"}) + "\n")
        print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
