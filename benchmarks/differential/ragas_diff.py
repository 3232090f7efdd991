"""scorekit's Ragas facade against Ragas 0.4.3 itself, side by side.

Ragas runs in its own environment (never a scorekit dependency)::

    python -m venv /tmp/ragas && /tmp/ragas/bin/pip install ragas==0.4.3 langchain-openai rapidfuzz \\
        'langchain-community<0.4'
    python benchmarks/differential/ragas_diff.py --ragas-python /tmp/ragas/bin/python

Both sides score the same seeded samples (random ones and the edge samples a user
hits) with the same legacy metrics through ``evaluate``, their judges answered by one
fake server with one rule (`ragas_cases.both_judges`). The script prints every value
that differs; ``--write`` stores Ragas' values as the tests' fixture
(tests/scorers/data/ragas043.json), which tests/scorers/test_ragas_differential.py
compares the facade with on every run, without Ragas.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
from ragas_cases import METRICS, all_rows, both_judges  # noqa: E402

FIXTURE = HERE.parents[1] / "tests/scorers/data/ragas043.json"


def facade_scores(url_judge: object, samples: list[dict[str, object]]) -> dict[str, list]:
    """The facade's ``evaluate`` over ``samples`` with `METRICS` (NaN as None)."""
    from scorers.ragas import evaluate
    from scorers.ragas import metrics as legacy

    built = []
    for name, options in METRICS:
        if name.startswith("non_llm"):
            cls = (
                legacy.NonLLMContextRecall
                if name == "non_llm_context_recall"
                else legacy.NonLLMContextPrecisionWithReference
            )
            metric = cls(threshold=float(options.get("threshold", 0.5)))  # type: ignore[arg-type]
            if options.get("distance_measure"):
                measure = legacy.DistanceMeasure(options["distance_measure"])
                if name == "non_llm_context_recall":
                    metric.distance_measure = measure  # Ragas' own way
                else:
                    metric.distance_measure = legacy.NonLLMStringSimilarity(measure)
        else:
            metric = {
                "context_recall": legacy.LLMContextRecall,
                "llm_context_precision_with_reference": legacy.LLMContextPrecisionWithReference,
                "llm_context_precision_without_reference": legacy.LLMContextPrecisionWithoutReference,
                "id_based_context_recall": legacy.IDBasedContextRecall,
                "id_based_context_precision": legacy.IDBasedContextPrecision,
            }[name]()
        metric.name = str(options.get("as", metric.name))
        built.append(metric)
    result = evaluate(samples, metrics=built, llm=url_judge, show_progress=False)
    return {name: [None if math.isnan(v) else v for v in result[name]] for name in result.results}


BLANK_TEXT_NO_NUMBER = {
    "llm_context_precision_with_reference": "reference",
    "llm_context_precision_without_reference": "response",
}
"""The deliberate difference (docs/migrating.md): with a blank reference (response) Ragas
asks its model whether each chunk is useful for nothing; the facade asks nothing and
gives NaN with a reason, never a number for a question it did not ask."""


def deliberate(name: str, row: dict | None, ours: float | None) -> bool:
    """Whether a difference is `BLANK_TEXT_NO_NUMBER`'s."""
    field = BLANK_TEXT_NO_NUMBER.get(name)
    return (
        field is not None
        and row is not None
        and not str(row.get(field) or "").strip()
        and bool(row.get("retrieved_contexts"))
        and ours is None
    )


def differences(
    ours: dict[str, list], theirs: dict[str, list], rows: list[dict] | None = None
) -> list[str]:
    """Every value that differs, but the deliberate differences (given ``rows``)."""
    found = []
    for name, values in theirs.items():
        for i, (a, b) in enumerate(zip(ours[name], values, strict=True)):
            if deliberate(name, rows[i] if rows else None, a):
                continue
            if (a is None) != (b is None) or (a is not None and abs(a - b) > 1e-12):
                found.append(f"{name} sample {i}: scorekit {a}, Ragas {b}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ragas-python", required=True, help="a python with ragas 0.4.3")
    parser.add_argument("--write", action="store_true", help=f"store {FIXTURE.name}")
    args = parser.parse_args()
    from evals.testing import FakeLLMServer

    samples = all_rows()
    with FakeLLMServer(both_judges) as server:
        spec = {"url": f"{server.url}/v1", "rows": samples, "metrics": METRICS}
        done = subprocess.run(
            [args.ragas_python, str(HERE / "ragas_side.py")],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            check=True,
        )
        theirs = json.loads(done.stdout)["scores"]
        ours = facade_scores(server.judge(cache=False), samples)
    version = subprocess.run(
        [args.ragas_python, "-c", "import ragas; print(ragas.__version__)"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    diff = differences(ours, theirs, samples)
    total = sum(len(v) for v in theirs.values())
    print(f"Ragas {version}: {len(samples)} samples x {len(theirs)} metrics = {total} values")
    print(f"{len(diff)} differ" + (":" if diff else ""))
    for line in diff:
        print("  " + line)
    if args.write:
        FIXTURE.write_text(json.dumps({"ragas": version, "rows": samples, "scores": theirs}))
        print(f"wrote {FIXTURE}")
    return 1 if diff else 0


if __name__ == "__main__":
    raise SystemExit(main())
