from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from evals.testing import FakeLLMServer
from scorers import (
    ConfigError,
    PromptStep,
    ScoreResult,
    ScorerRun,
    create_context_recall_scorer,
    create_scorer,
    not_scorable,
)
from scorers._model._litellm import stop_litellm_logging


class Keywords(BaseModel):
    keywords: list[str]


def keyword_scorer(judge):
    return (
        create_scorer(
            id="keyword-coverage", description="answer covers the keywords", judge=judge, scale=10
        )
        .preprocess(
            PromptStep(
                description="keywords of the ground truth",
                output_schema=Keywords,
                create_prompt=lambda run, results: f"List the keywords of: {run.ground_truth}",
            )
        )
        .analyze(
            lambda run, results: [
                k for k in results.preprocess.keywords if k in str(run.output).lower()
            ]
        )
        .generate_score(
            lambda run, results: len(results.analyze) / len(results.preprocess.keywords)
        )
        .generate_reason(lambda run, results, score: f"covered {results.analyze} -> {score}")
    )


def test_custom_scorer_with_prompt_and_function_steps(fake_llm_server: FakeLLMServer):
    fake_llm_server.handler = lambda request: {"keywords": ["paris", "france", "capital"]}
    scorer = keyword_scorer(fake_llm_server.judge())
    result = scorer.run(output="Paris is in France", ground_truth="Paris is the capital of France")
    assert result.score == pytest.approx(10 * 2 / 3)
    assert result.reason.startswith("covered ['paris', 'france']")
    assert result.details["preprocess"] == {"keywords": ["paris", "france", "capital"]}
    assert result.details["analyze"] == ["paris", "france"]
    assert (
        result.details["prompts"]["preprocess"]
        == "List the keywords of: Paris is the capital of France"
    )
    assert [c.step for c in result.judge_calls] == ["preprocess"]


def test_builder_is_immutable_and_orders_steps():
    base = create_scorer(id="s")
    with_score = base.generate_score(lambda run, results: 1)
    assert base is not with_score
    with pytest.raises(ConfigError, match="no generate_score"):
        base.run()
    order: list[str] = []
    scorer = (
        with_score.analyze(lambda run, results: order.append("analyze"))
        .preprocess(lambda run, results: order.append("pre1"))
        .preprocess(lambda run, results: order.append("pre2"))
    )
    assert scorer.run().score == 1.0
    assert order == ["pre1", "pre2", "analyze"]
    assert with_score.run().details == {}


def test_async_steps_not_scorable_and_clamping():
    async def slow_pre(run, results):
        await asyncio.sleep(0)
        return run.input

    scorer = (
        create_scorer(id="s", scale=2)
        .preprocess(slow_pre)
        .generate_score(lambda run, results: 5 if results.preprocess == "big" else -1)
    )
    assert scorer.run(input="big").score == 2.0
    assert scorer.run(input="small").score == 0.0
    skipping = scorer.analyze(lambda run, results: not_scorable("nothing to do"))
    result = skipping.run(input="big")
    assert (result.status, result.score, result.reason) == ("skipped", 0.0, "nothing to do")


def test_bad_definitions_fail_with_clear_errors():
    with pytest.raises(ConfigError, match="non-empty id"):
        create_scorer(id="")
    with pytest.raises(ConfigError, match="has no judge"):
        create_scorer(id="s").analyze(PromptStep("d", Keywords, lambda r, s: "p"))
    with pytest.raises(ConfigError, match="must return a number"):
        create_scorer(id="s").generate_score(lambda r, s: "high").run()
    with pytest.raises(ConfigError, match="invalid scorer input"):
        create_scorer(id="s").generate_score(lambda r, s: 1).run(unknown_field=1)
    with pytest.raises(ConfigError, match="already exists"):
        create_scorer(id="s").analyze(print, name="x").analyze(print, name="x")


@pytest.mark.anyio
async def test_sync_run_works_inside_a_running_event_loop(fake_llm_server: FakeLLMServer):
    scorer = create_context_recall_scorer(
        fake_llm_server.judge(), {"context": ["Einstein was born in Ulm."]}
    )
    asyncio.get_running_loop()  # we are inside a loop, as in Jupyter
    result = scorer.run(ground_truth="Einstein was born in Ulm.")
    assert isinstance(result, ScoreResult) and result.score == 1.0
    result = await scorer.arun(ground_truth="Einstein was born in Ulm.")
    assert result.score == 1.0
    await stop_litellm_logging()  # this test's own loop is about to close


@pytest.mark.anyio
async def test_arun_accepts_a_dict_run():
    scorer = create_scorer(id="len").generate_score(lambda run, results: len(run.input) / 10)
    assert (await scorer.arun({"input": "abcde"})).score == 0.5
    assert float(await scorer.arun(input="abcdefghij")) == 1.0


def test_model_free_scorers_run_inline_even_when_a_step_waits():
    import anyio

    from evals import run_evals
    from scorers._engine import score_inline

    async def slow_step(run, results):
        await anyio.sleep(0.01)  # a real suspension: the run finishes under the loop
        return len(run.input)

    waits = (
        create_scorer(id="waits")
        .preprocess(slow_step)
        .generate_score(lambda run, results: results.preprocess / 10)
        .generate_reason(lambda run, results, score: f"length {results.preprocess}")
    )
    plain = create_scorer(id="plain").generate_score(lambda run, results: 0.5)
    assert waits.model_free and plain.model_free
    result = run_evals([{"input": "abc"}, {"input": "abcdefgh"}], [waits, plain], progress=False)
    assert [r.scorer_results["waits"].score for r in result.items] == [0.3, 0.8]
    assert result.items[1].scorer_results["waits"].reason == "length 8"
    assert result.scores == {"waits": 0.55, "plain": 0.5}

    async def finish():
        inline = score_inline(waits, ScorerRun(input="abcd"))
        assert not isinstance(inline, ScoreResult)  # it waited: an awaitable comes back
        return await inline

    assert anyio.run(finish).score == 0.4
    assert score_inline(plain, ScorerRun(input="x")).score == 0.5  # done at once
