"""`create_label_check_scorer` and `create_question_writer` through the fake judge."""

from __future__ import annotations

import json

import pytest

from evals.testing import FakeLLMServer, FakeRequest, FakeResponse, rule_based_judge
from scorers import (
    ConfigError,
    ScorerRun,
    create_label_check_scorer,
    create_question_writer,
    scorer_by_id,
)

PASSAGE = "The Rhine rises in the Swiss Alps and flows about 1,230 kilometres to the North Sea."


def test_label_check_passes_a_good_row_and_names_each_failed_gate() -> None:
    with FakeLLMServer() as fake:
        scorer = scorer_by_id("label-check", fake.judge())
        good = scorer.run(
            ScorerRun(
                input="Where does the Rhine rise?",
                ground_truth=PASSAGE,
                reference_contexts=[PASSAGE],
            )
        )
        wrong = scorer.run(
            ScorerRun(
                input="Where does the Rhine rise?",
                ground_truth="The Rhine rises in the Black Forest of Bavaria.",
                reference_contexts=[PASSAGE],
            )
        )
        leaks = scorer.run(
            ScorerRun(
                input=f"Is it so that {PASSAGE}", ground_truth=PASSAGE, reference_contexts=[PASSAGE]
            )
        )
        missing = scorer.run(ScorerRun(input="Where?", ground_truth=PASSAGE))
        calls = fake.call_count
    assert (good.score, good.reason) == (
        1.0,
        "passes every check: rule-based checks by word overlap",
    )
    assert wrong.score == 0.0 and wrong.reason.startswith("fails not_answered")
    assert leaks.score == 0.0 and leaks.reason.startswith("fails answer_in_question")
    assert missing.status == "skipped" and "reference_contexts" in missing.reason
    assert calls == 3  # the skipped row asked nothing


def test_several_gold_passages_must_each_be_needed_unless_told_otherwise() -> None:
    other = "Basel is a Swiss city on the Rhine with a famous art fair."
    run = ScorerRun(
        input="Where does the Rhine rise?",
        ground_truth=PASSAGE,
        reference_contexts=[PASSAGE, other],
    )
    with FakeLLMServer() as fake:
        strict = create_label_check_scorer(fake.judge()).run(run)
        loose = create_label_check_scorer(fake.judge(), {"require_all_passages": False}).run(run)
    assert strict.score == 0.0 and strict.reason.startswith("fails not_multi_hop")
    assert loose.score == 1.0


def test_the_writer_repairs_a_missing_field_and_validates_options() -> None:
    def forgets_once(request: FakeRequest) -> FakeResponse | str:
        if request.schema_name == "WrittenQuestion" and not request.is_repair:
            return json.dumps({"question": "Where does the Rhine rise?"})
        return rule_based_judge(request)

    with FakeLLMServer(forgets_once) as fake:
        result = create_question_writer(fake.judge()).run(ScorerRun(context=[PASSAGE]))
    assert result.score == 1.0 and len(result.judge_calls) == 2
    assert result.details["write_question"]["answer"] == PASSAGE
    with pytest.raises(ConfigError, match="kind must be one of"):
        create_question_writer("openai/x", {"kind": "long"})
    with pytest.raises(ConfigError, match="takes the options"):
        create_label_check_scorer("openai/x", {"strict": True})
    with FakeLLMServer() as fake:
        two = create_question_writer(fake.judge(), {"kind": "multi"}).run(
            ScorerRun(context=[PASSAGE])
        )
    assert two.status == "skipped" and "needs 2" in two.reason
