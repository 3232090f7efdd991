"""Judge(tokens_per_minute=...): a token bucket shared by every call of the judge."""

from __future__ import annotations

import pytest

from evals.testing import FakeLLMServer, Fault
from scorers import ConfigError, Judge, create_context_recall_scorer
from scorers._model._limits import TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_bucket_waits_for_prompt_tokens_and_charges_completions():
    clock = Clock()
    bucket = TokenBucket(600, clock=clock)  # 10 tokens a second
    assert bucket.delay_for(600) == 0.0  # a full minute to start
    bucket.level -= 550  # requests took 550
    assert bucket.delay_for(100) == pytest.approx(5.0)  # 50 short at 10 a second
    clock.now = 5.0
    assert bucket.delay_for(100) == 0.0
    bucket.charge(300)  # a long answer: the next requests wait longer
    assert bucket.delay_for(100) == pytest.approx(30.0)
    bucket.slow_down(20.0)  # the provider's 429 said: 20 s
    assert bucket.delay_for(1) >= 20.0
    assert bucket.delay_for(10_000) == bucket.delay_for(600)  # capped at a full bucket


def test_a_give_back_never_fills_the_bucket_past_its_size():
    clock = Clock()
    bucket = TokenBucket(600, clock=clock)
    bucket.level -= 100
    clock.now = 60.0  # refilled in full meanwhile
    bucket.charge(-40)  # the provider counted fewer prompt tokens than we took
    assert bucket.level == 600


def test_the_judge_counts_tokens_and_a_token_429_slows_the_bucket():
    with FakeLLMServer() as server:
        judge = server.judge(tokens_per_minute=1_000_000)
        recall = create_context_recall_scorer(judge)
        result = recall.run(
            ground_truth="Einstein was born in Ulm.", context=["Einstein was born in Ulm."]
        )
        assert result.score == 1.0
        bucket = judge._own_limits.tokens
        # the level refills at 16,667 tokens/s, so what was taken may be back already
        assert bucket is not None and bucket.level <= 1_000_000  # never overfilled
        assert sum(call.prompt_tokens for call in result.judge_calls) > 0
        server.script(
            Fault.rate_limit(
                retry_after=0.01, message="Rate limit reached for tokens per min (TPM)"
            )
        )
        slowed: list[float | None] = []
        original = bucket.slow_down
        bucket.slow_down = lambda seconds: (slowed.append(seconds), original(seconds))  # type: ignore[method-assign]
        recall.run(ground_truth="Curie won two Nobel Prizes.", context=["Curie won two."])
        assert slowed == [0.01]  # the token 429 drained the bucket for its Retry-After
        server.script(Fault.rate_limit(retry_after=0.01))  # a plain 429: only a retry
        recall.run(ground_truth="Newton wrote the Principia.", context=["Newton wrote it."])
        assert slowed == [0.01]
    with pytest.raises(ConfigError, match=r"tokens_per_minute=...\) must be a finite number > 0"):
        Judge("openai/m", tokens_per_minute=0)
