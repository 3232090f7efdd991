"""scorekit's context relevance against Mastra's createContextRelevanceScorerLLM, side by side.

Mastra runs under Node in its own folder (never a scorekit dependency)::

    mkdir -p /tmp/mastra && cd /tmp/mastra && npm init -y && \\
        npm install @mastra/evals@1.10.2 @mastra/core
    python benchmarks/differential/mastra_diff.py --mastra-dir /tmp/mastra

Both sides score the same seeded cases (`mastra_cases.all_cases`), their judges answered by
one fake server with one rule (`mastra_cases.both_judges`; the fake streams its answers as
Mastra asks). The script prints every value that differs beyond the documented
differences; ``--write`` stores Mastra's values as the tests' fixture
(tests/scorers/data/mastra110.json), which tests/scorers/test_mastra_differential.py
compares scorekit with on every run, without Node.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
from mastra_cases import all_cases, both_judges  # noqa: E402

FIXTURE = HERE.parents[1] / "tests/scorers/data/mastra110.json"


def mastra_round(value: float) -> float:
    """JavaScript's ``Math.round((value + Number.EPSILON) * 100) / 100``: how Mastra rounds
    every score."""
    return math.floor((value + sys.float_info.epsilon) * 100 + 0.5) / 100


def ours(judge: Any, case: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """scorekit's exact score of a case and its verdicts step."""
    from scorers import create_context_relevance_scorer

    options: dict[str, Any] = {"context": case["context"], "scale": float(case["scale"])}
    if case.get("penalties"):
        options["penalties"] = case["penalties"]
    scorer = create_context_relevance_scorer(judge, options)
    result = scorer.run(input=case["question"], output=case["response"] or None)
    return float(result.score or 0.0), result.details.get("verdicts") or {}


def deliberate(case: dict[str, Any]) -> str:
    """Why a case's values differ on purpose ("" when they must agree)."""
    if not case["response"]:
        return "no response: scorekit asks no usage question and takes no usage penalty"
    return ""


def differences(
    cases: list[dict[str, Any]], theirs: list[dict[str, Any]], mine: list[float]
) -> list[str]:
    found = []
    for i, (case, t, m) in enumerate(zip(cases, theirs, mine, strict=True)):
        if deliberate(case):
            continue
        if mastra_round(m) != t["score"]:
            found.append(f"case {i}: scorekit {m} (rounded {mastra_round(m)}), Mastra {t['score']}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mastra-dir", required=True, help="a folder with @mastra/evals installed")
    parser.add_argument("--write", action="store_true", help=f"store {FIXTURE.name}")
    args = parser.parse_args()
    from evals.testing import FakeLLMServer

    side = Path(args.mastra_dir) / "scorekit_mastra_side.mjs"
    shutil.copy(HERE / "mastra_side.mjs", side)
    cases = all_cases()
    with FakeLLMServer(both_judges) as server:
        done = subprocess.run(
            ["node", str(side)],
            input=json.dumps({"url": server.url, "cases": cases}),
            capture_output=True, text=True, cwd=args.mastra_dir, check=False,
        )  # fmt: skip
        if done.returncode:
            print(done.stderr[-3000:], file=sys.stderr)
            return 2
        theirs = json.loads(done.stdout)
        judge = server.judge(cache=False)
        mine = [ours(judge, case)[0] for case in cases]
    diff = differences(cases, theirs["results"], mine)
    kept = [c for c in cases if not deliberate(c)]
    print(f"@mastra/evals {theirs['version']}: {len(cases)} cases, {len(kept)} compared, "
          f"{len(cases) - len(kept)} deliberate differences")  # fmt: skip
    print(f"{len(diff)} differ" + (":" if diff else ""))
    for line in diff:
        print("  " + line)
    if args.write:
        FIXTURE.write_text(
            json.dumps({"mastra": theirs["version"], "cases": cases, "results": theirs["results"]})
        )
        print(f"wrote {FIXTURE}")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
