"""`scorers.score_many` called directly, as the public engine entry: what it takes and
what it says (`test_many` covers it through `run_evals`)."""

from __future__ import annotations

import anyio
import pytest

from evals.testing import FakeLLMServer
from scorers import (
    ConfigError,
    Job,
    Scored,
    ScorerRun,
    create_context_recall_scorer,
    create_id_context_recall_scorer,
    score_many,
)

RUN = ScorerRun(
    context=[{"id": "d1", "text": "Einstein was born in Ulm in 1879."}],
    ground_truth="Einstein was born in Ulm in 1879.",
    reference_context_ids=["d1", "d2"],
)


def _collect(scorers, jobs, **kwargs) -> dict:
    found: dict = {}

    async def keep(scored: Scored) -> None:
        found[scored.job.key] = scored

    anyio.run(lambda: score_many(scorers, jobs, keep, **kwargs))
    return found


def test_jobs_pick_their_scorers_and_keys_come_back_untouched() -> None:
    key = object()
    with FakeLLMServer() as fake:
        scorers = {
            "ids": create_id_context_recall_scorer(),
            "llm": create_context_recall_scorer(fake.judge()),
        }
        found = _collect(scorers, [Job(key, RUN), Job("only-ids", RUN, only=("ids",))])
        calls = fake.call_count
    assert found[key].results["ids"].score == 0.5 and found[key].results["llm"].score == 1.0
    assert list(found["only-ids"].results) == ["ids"]
    assert calls == 2 and len(found[key].calls) == 2 and found["only-ids"].calls == []


@pytest.mark.parametrize(
    ("scorers", "jobs", "kwargs", "message"),
    [
        ([create_id_context_recall_scorer()], [], {}, "mapping key -> Scorer"),
        ({"a": "context-recall"}, [], {}, "mapping key -> Scorer"),
        ({"a": create_id_context_recall_scorer()}, [RUN], {}, "job 0 is ScorerRun"),
        ({"a": create_id_context_recall_scorer()}, [Job("k")], {}, "Job\\(key, run\\)"),
        ({"a": create_id_context_recall_scorer()}, [], {"concurrency": 0}, "concurrency"),
        ({"a": create_id_context_recall_scorer()}, [], {"max_cost": -1}, "max_cost"),
    ],
)
def test_bad_arguments_are_named_before_any_work(scorers, jobs, kwargs, message) -> None:
    with pytest.raises(ConfigError, match=message):
        _collect(scorers, jobs, **kwargs)
