"""`constructed` builds what pydantic's ``model_construct`` builds."""

from __future__ import annotations

import pytest

from evals import EvalItem
from scorers import ScoreResult, ScorerRun
from scorers._construct import constructed

CASES = [
    (ScorerRun, {"input": "q", "retrieved_context_ids": ["a", "b"], "run_id": "x"}),
    (ScorerRun, {}),
    (ScoreResult, {"scorer_id": "s", "score": 0.5, "reason": "r", "details": {"k": [1]}}),
    (EvalItem, {"id": "1", "input": "q", "reference_context_ids": ["a"]}),
]


@pytest.mark.parametrize(("cls", "values"), CASES)
def test_constructed_is_model_construct(cls, values):
    mine, theirs = constructed(cls, **values), cls.model_construct(**values)
    assert mine == theirs
    assert list(vars(mine)) == list(vars(theirs))
    assert mine.model_fields_set == theirs.model_fields_set
    assert mine.__pydantic_private__ == theirs.__pydantic_private__
    assert mine.model_dump_json() == theirs.model_dump_json()


def test_defaults_made_by_a_factory_are_new_each_time():
    first, second = constructed(ScorerRun), constructed(ScorerRun)
    assert first.request_context == {} and first.request_context is not second.request_context
    assert first.memo() is not second.memo()
