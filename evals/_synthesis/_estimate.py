"""`estimate_synthesis`: calls, tokens and cost of `synthesize`, without calling a model.

A sample of candidates is written and checked by a stand-in judge that answers the real
prompts by rule (`scorers`' rule judge), so prompt tokens are counted on the prompts a
real run sends; the totals are scaled to ``n`` rows at an assumed keep rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel

from scorers import ConfigError, Judge, ModelRequest, ScriptedTransport
from scorers._internal import rule_answer

from .._twins import sync_twin
from ._api import Corpus, _judge, _options, run_synthesis
from ._corpus import MAX_CHARS
from ._run import KINDS

SAMPLE_ROWS = 24
"""Rows the stand-in writes to measure the prompts."""


class SynthesisEstimate(BaseModel):
    """What `estimate_synthesis` returns.

    Attributes:
        rows: Rows asked for (``n``).
        keep_rate: The share of candidates assumed to pass every gate.
        candidates: Candidates needed: ``ceil(rows / keep_rate)``.
        calls: Model calls: a write and a check per candidate.
        prompt_tokens: Counted on the real prompts of a sample, scaled.
        completion_tokens: Estimated from the stand-in's answers, scaled.
        cost: USD at the judge's price (None when unknown).
        wall_time_s: ``calls * latency_s / concurrency``.
    """

    rows: int
    keep_rate: float
    candidates: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    wall_time_s: float

    def table(self) -> str:
        """One paragraph for a person deciding whether to run it."""
        cost = "n/a (no price known for this model)" if self.cost is None else f"${self.cost:.4f}"
        return (
            f"estimate for {self.rows} rows at a keep rate of {self.keep_rate:.0%}: "
            f"{self.candidates} candidates, {self.calls} model calls, "
            f"{self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens, "
            f"cost {cost}, about {self.wall_time_s:.0f} s (no model was called)"
        )

    def __str__(self) -> str:
        return self.table()


def _stand_in(request: ModelRequest) -> str:
    return rule_answer(request.prompt)


async def aestimate_synthesis(
    corpus: Corpus,
    model: Judge | str,
    n: int = 100,
    *,
    kinds: Sequence[str] = KINDS,
    language: str = "auto",
    seed: int = 0,
    concurrency: int = 16,
    max_chars: int = MAX_CHARS,
    keep_rate: float = 0.8,
    latency_s: float = 1.0,
) -> SynthesisEstimate:
    """What `synthesize` would cost, without calling any model.

    Args:
        corpus: As for `synthesize`.
        model: The judge whose price and token counting apply (it is not called).
        n: Rows wanted.
        kinds, language, seed, concurrency, max_chars: As for `synthesize`.
        keep_rate: The share of candidates assumed to pass every gate.
        latency_s: Seconds per call, for the wall time.

    Returns:
        A `SynthesisEstimate`.
    """
    if (
        isinstance(keep_rate, bool)
        or not isinstance(keep_rate, (int, float))
        or not (0 < keep_rate <= 1)
    ):
        raise ConfigError(f"keep_rate must be in (0, 1]; got {keep_rate!r}")
    judge = _judge(model)
    options = _options(n, kinds, language, seed, None, concurrency, "none")
    options.update(n=min(options["n"], SAMPLE_ROWS), token_counter=judge.count_tokens)
    stand_in = judge.stand_in(ScriptedTransport(_stand_in))
    sample = await run_synthesis(corpus, stand_in, options, None, False, max_chars)
    s = sample.summary
    per_call = (s.prompt_tokens / s.calls, s.completion_tokens / s.calls) if s.calls else (0, 0)
    candidates = math.ceil(n / keep_rate)
    calls = 2 * candidates
    prompt, completion = round(calls * per_call[0]), round(calls * per_call[1])
    price = judge.price_per_token()
    return SynthesisEstimate(
        rows=n,
        keep_rate=keep_rate,
        candidates=candidates,
        calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost=None if price is None else prompt * price[0] + completion * price[1],
        wall_time_s=calls * latency_s / concurrency,
    )


estimate_synthesis = sync_twin(aestimate_synthesis)
