"""The facade's ContextRelevance and ContextEntityRecall against Ragas 0.4.3's, side by side.

Ragas runs in its own environment (as for ragas_diff.py)::

    python -m venv /tmp/ragas && /tmp/ragas/bin/pip install ragas==0.4.3 langchain-openai \\
        rapidfuzz 'langchain-community<0.4'
    python benchmarks/differential/ragas_relevance_diff.py --ragas-python /tmp/ragas/bin/python

Both sides score the same seeded samples (`ragas_relevance_cases.rows`: random ones, the
judge's faults on cue, the edge samples) three ways — ``evaluate`` and
``single_turn_ascore`` with the legacy metrics, ``ascore`` of Ragas 0.4's
``collections`` metrics — their judges answered by one fake server with one rule. The
script prints every value that differs; ``--write`` stores Ragas' values as the tests'
fixture (tests/scorers/data/ragas043_relevance.json), which
tests/scorers/test_ragas_relevance_differential.py compares the facade with on every run.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
from ragas_relevance_cases import both_judges, collections_ok, rows  # noqa: E402

FIXTURE = HERE.parents[1] / "tests/scorers/data/ragas043_relevance.json"
NAMES = {
    "nv_context_relevance": "context_relevance",
    "context_entity_recall": "context_entity_recall",
}


def _clean(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def facade_values(
    judge: Any, samples: list[dict[str, Any]], chosen: dict[str, list[int]]
) -> dict[str, Any]:
    """The facade's values, the three ways Ragas' side computes them."""
    from scorers import ragas
    from scorers.ragas import metrics as legacy

    built = [legacy.ContextRelevance(), legacy.ContextEntityRecall()]
    result = ragas.evaluate(samples, metrics=built, llm=judge, show_progress=False)
    out: dict[str, Any] = {"evaluate": {m.name: [_clean(v) for v in result[m.name]] for m in built}}
    single = {}
    for cls in (legacy.ContextRelevance, legacy.ContextEntityRecall):
        metric = cls(llm=judge)
        values = []
        for row in samples:
            try:
                values.append(_clean(metric.single_turn_score(row)))
            except Exception:
                values.append("error")
        single[metric.name] = values
    out["single_turn_ascore"] = single
    modern = {}
    for cls, fields in (
        (ragas.ContextRelevance, ("user_input", "retrieved_contexts")),
        (ragas.ContextEntityRecall, ("reference", "retrieved_contexts")),
    ):
        metric = cls(llm=judge)
        values = []
        for i, row in enumerate(samples):
            if i not in chosen[metric.name]:
                values.append(None)
                continue
            try:
                values.append(_clean(metric.score(**{f: row[f] for f in fields}).value))
            except Exception:
                values.append("error")
        modern[metric.name] = values
    out["collections"] = modern
    return out


def differences(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    found = []
    for way, metrics in theirs.items():
        for name, values in metrics.items():
            for i, (a, b) in enumerate(zip(ours[way][name], values, strict=True)):
                same = (
                    a == b
                    if isinstance(a, str) or isinstance(b, str) or a is None or b is None
                    else abs(a - b) <= 0
                )
                if not same:
                    found.append(f"{way} {name} sample {i}: scorekit {a}, Ragas {b}")
    return found


def chosen_rows(samples: list[dict[str, Any]]) -> dict[str, list[int]]:
    return {
        name: [i for i, r in enumerate(samples) if collections_ok(r, name)]
        for name in ("context_relevance", "context_entity_recall")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ragas-python", required=True, help="a python with ragas 0.4.3")
    parser.add_argument("--write", action="store_true", help=f"store {FIXTURE.name}")
    args = parser.parse_args()
    from evals.testing import FakeLLMServer

    samples = rows()
    chosen = chosen_rows(samples)
    with FakeLLMServer(both_judges) as server:
        spec = {"url": f"{server.url}/v1", "rows": samples, "collections": chosen}
        done = subprocess.run(
            [args.ragas_python, str(HERE / "ragas_relevance_side.py")],
            input=json.dumps(spec), capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode or not done.stdout.strip():
            print(done.stderr[-3000:], file=sys.stderr)
            return 2
        theirs = json.loads(done.stdout)
        ours = facade_values(server.judge(cache=False), samples, chosen)
    diff = differences(ours, theirs)
    total = sum(
        sum(v is not None or way != "collections" for v in values)
        for way, metrics in theirs.items()
        for values in metrics.values()
    )
    print(f"Ragas 0.4.3: {len(samples)} samples, {total} values compared")
    print(f"{len(diff)} differ" + (":" if diff else ""))
    for line in diff:
        print("  " + line)
    if args.write:
        FIXTURE.write_text(json.dumps({"ragas": "0.4.3", "rows": samples, "collections": chosen,
                                       "values": theirs}))  # fmt: skip
        print(f"wrote {FIXTURE}")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
