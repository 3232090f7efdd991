"""Scores recorded during a pytest session (by `assert_score`), for the end-of-run table.

Pure Python on purpose: the pytest plugin imports it in every session.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Recorded:
    """One `assert_score` call.

    Attributes:
        test: The pytest node id of the test that made it.
        scorer_id: The scorer.
        score: The score.
        status: ``"scored"``, ``"skipped"`` or ``"error"``.
        passed: Whether the assertion held.
        result: The `ScoreResult`, as JSON-ready data.
        run: The run's fields, as JSON-ready data.
    """

    test: str
    scorer_id: str
    score: float | None
    status: str
    passed: bool
    result: dict[str, Any] = field(default_factory=dict)
    run: dict[str, Any] = field(default_factory=dict)


class Collector:
    """What `assert_score` recorded in this session."""

    def __init__(self) -> None:
        self.current_test = ""
        self.records: list[Recorded] = []

    def table(self) -> str:
        """Per scorer: assertions, passed, mean, min and max score."""
        by_scorer: dict[str, list[Recorded]] = {}
        for record in self.records:
            by_scorer.setdefault(record.scorer_id, []).append(record)
        width = max([len("scorer"), *(len(s) for s in by_scorer)])
        lines = [
            f"{'scorer':<{width}}  {'asserts':>7}  {'passed':>6}  {'mean':>6}  {'min':>6}  {'max':>6}"
        ]
        for sid, records in by_scorer.items():
            scores = [r.score for r in records if r.status == "scored" and r.score is not None]
            mean = math.fsum(scores) / len(scores) if scores else None

            def fmt(value: float | None) -> str:
                return "-" if value is None else f"{value:.3f}"

            lines.append(
                f"{sid:<{width}}  {len(records):>7}  {sum(r.passed for r in records):>6}  "
                f"{fmt(mean):>6}  {fmt(min(scores) if scores else None):>6}  "
                f"{fmt(max(scores) if scores else None):>6}"
            )
        return "\n".join(lines)

    def by_test(self) -> str:
        """Each assertion, grouped by test id (the tests' order of first record)."""
        by_test: dict[str, list[Recorded]] = {}
        for record in self.records:
            by_test.setdefault(record.test, []).append(record)
        width = max(len(record.scorer_id) for record in self.records)
        lines = []
        for test, records in by_test.items():
            lines.append(test or "(outside a test)")
            for r in records:
                shown = f"{r.score:.3f}" if r.status == "scored" else r.status
                verdict = "passed" if r.passed else "FAILED"
                lines.append(f"  {r.scorer_id:<{width}}  {shown:>7}  {verdict}")
        return "\n".join(lines)

    def dump(self) -> str:
        """The records as JSON (what a pytest-xdist worker sends its controller)."""
        return json.dumps([asdict(record) for record in self.records], default=str)

    def load(self, text: str) -> None:
        """Add the records a worker sent (see `dump`)."""
        self.records.extend(Recorded(**data) for data in json.loads(text))

    def write(self, path: str) -> None:
        """A results file (`run_evals`' format, one line per assertion) for
        ``scorekit report`` / `read_results`."""
        with open(path, "w", encoding="utf-8") as handle:
            for n, record in enumerate(self.records, start=1):
                run = record.run
                item = {
                    "id": f"{record.test}#{n}",
                    "input": run.get("input"),
                    "ground_truth": run.get("ground_truth"),
                    "output": run.get("output"),
                    "context": run.get("context"),
                    "reference_contexts": run.get("reference_contexts"),
                    "reference_context_ids": run.get("reference_context_ids"),
                    "metadata": {"test": record.test, "passed": record.passed},
                }
                line = {"item": item, "scorer_results": {record.scorer_id: record.result}}
                handle.write(json.dumps(line, default=str) + "\n")


COLLECTOR = Collector()
