"""`estimate_run`: calls, tokens, cost and wall time of a run, without calling the model.

The run is played in process against a stand-in judge that answers scorekit's own
prompts the way `evals.testing`'s rule-based judge does (claims are the ground truth's
sentences, verdicts follow word overlap), so every prompt that a real run would send is
built for real — the verdict prompt holds the claims — and counted. Calls are exact
whenever the real judge's answers lead the pipeline the same way (same number of claims
is not needed: recall makes one verdict call whatever their number); completion tokens
are those of the stand-in's answers, an estimate.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from scorers import ConfigError, Judge, ModelRequest, PromptStep, Scorer, ScriptedTransport
from scorers._internal import rule_answer

from ._data import load_dataset
from ._keyed import scorer_map
from ._twins import sync_twin


class ScorerEstimate(BaseModel):
    """One scorer's share of the estimate.

    Attributes:
        calls: Model calls the run would make (no cache hits assumed).
        prompt_tokens: Prompt tokens of those calls, counted from their real prompts.
        completion_tokens: Completion tokens, estimated from stand-in answers.
        cost: USD at the judge's price (None when unknown).
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None


class RunEstimate(BaseModel):
    """What `estimate_run` returns.

    Attributes:
        items: Items in the run.
        scorers: Per scorer id, its `ScorerEstimate`.
        calls: All model calls.
        prompt_tokens: All prompt tokens.
        completion_tokens: All completion tokens (estimated).
        cost: USD, None when a price is unknown.
        wall_time_s: The slowest of: calls spread over the concurrency at
            ``latency_s`` each, the judges' request rates, their token rates.
        latency_s: The per-call latency assumed for ``wall_time_s``.
    """

    items: int
    scorers: dict[str, ScorerEstimate] = Field(default_factory=dict)
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0
    wall_time_s: float = 0.0
    latency_s: float = 1.0

    def table(self) -> str:
        """Per scorer: calls, tokens, cost; then the totals and the wall time."""
        width = max([len("scorer"), *(len(s) for s in self.scorers)])
        lines = [
            f"{'scorer':<{width}}  {'calls':>7}  {'prompt tok':>11}  {'compl. tok (est.)':>17}  {'cost':>10}"
        ]
        for sid, s in self.scorers.items():
            cost = "n/a" if s.cost is None else f"${s.cost:.4f}"
            lines.append(
                f"{sid:<{width}}  {s.calls:>7}  {s.prompt_tokens:>11,}  {s.completion_tokens:>17,}  {cost:>10}"
            )
        cost = "n/a" if self.cost is None else f"${self.cost:.4f}"
        lines.append("")
        lines.append(
            f"estimate for {self.items} items: {self.calls} model calls, "
            f"{self.prompt_tokens + self.completion_tokens:,} tokens, cost {cost}, about "
            f"{self.wall_time_s:.0f} s at {self.latency_s:g} s per call (no model was called)"
        )
        return "\n".join(lines)


def _stand_in(request: ModelRequest) -> str:
    return rule_answer(request.prompt)


def _judge_counter(judge: Judge | None) -> Callable[[str, list[dict[str, Any]]], int]:
    def count(model: str, messages: list[dict[str, Any]]) -> int:
        assert judge is not None  # only scorers with a judge make calls
        return judge.count_tokens(messages)

    return count


async def aestimate_run(
    data: str | os.PathLike[str] | Iterable[Any],
    scorers: Sequence[Scorer] | Mapping[str, Scorer] | Scorer,
    *,
    concurrency: int = 8,
    latency_s: float = 1.0,
    token_counter: Callable[[str, list[dict[str, Any]]], int] | None = None,
) -> RunEstimate:
    """What a run of ``scorers`` over ``data`` would cost, without calling any model.

    Args:
        data: The items (with their ``output`` / ``context``: targets are not called).
        scorers: The scorers of the run.
        concurrency: Items in flight, as in `run_evals`.
        latency_s: The per-call latency assumed for the wall time.
        token_counter: ``fn(model, messages) -> tokens``; default litellm's counter for
            the model (about four characters a token when it cannot count).

    Returns:
        A `RunEstimate`: per scorer calls, prompt tokens (from the real prompts),
        completion tokens (estimated), cost at the judge's price; the wall time at the
        configured concurrency and the judges' limits.
    """
    from ._run._runner import arun_evals

    items = load_dataset(data)
    originals = scorer_map(scorers)
    stand_ins: dict[str, Scorer] = {}
    judges: dict[str, Judge] = {}
    for sid, scorer in originals.items():
        if any(isinstance(s.fn, PromptStep) and s.fn.judge is not None for s in scorer.steps):
            raise ConfigError(
                f"scorer {sid!r} has a step with its own judge; estimate_run cannot stand in for it"
            )
        stand_ins[sid] = scorer
        if scorer.judge is not None:
            stand_in = scorer.judge.stand_in(ScriptedTransport(_stand_in))
            stand_ins[sid] = scorer.with_judge(stand_in)
            judges[sid] = scorer.judge
    result = await arun_evals(items, stand_ins, concurrency=concurrency, progress=False)
    estimate = RunEstimate(items=len(items), latency_s=latency_s)
    for sid in originals:
        per = ScorerEstimate()
        count = token_counter or _judge_counter(judges.get(sid))
        price = judges[sid].price_per_token() if sid in judges else (0.0, 0.0)
        for item in result.items:
            scored = item.scorer_results.get(sid)
            for call in scored.judge_calls if scored else ():
                per.calls += 1
                per.prompt_tokens += count(call.model, call.messages)
                per.completion_tokens += count(
                    call.model, [{"role": "assistant", "content": call.response}]
                )
        if price is not None:
            per.cost = per.prompt_tokens * price[0] + per.completion_tokens * price[1]
        estimate.scorers[sid] = per
        estimate.calls += per.calls
        estimate.prompt_tokens += per.prompt_tokens
        estimate.completion_tokens += per.completion_tokens
        estimate.cost = (
            None if estimate.cost is None or per.cost is None else estimate.cost + per.cost
        )
    slots = concurrency * max(1, len(originals))
    times = [estimate.calls * latency_s / slots]
    for judge in {id(j): j for j in judges.values()}.values():
        calls = sum(estimate.scorers[s].calls for s, j in judges.items() if j is judge)
        tokens = sum(
            estimate.scorers[s].prompt_tokens + estimate.scorers[s].completion_tokens
            for s, j in judges.items()
            if j is judge
        )
        if judge.max_concurrency:
            times.append(calls * latency_s / judge.max_concurrency)
        if judge.requests_per_minute:
            times.append(calls / judge.requests_per_minute * 60)
        if judge.tokens_per_minute:
            times.append(tokens / judge.tokens_per_minute * 60)
    estimate.wall_time_s = max(times)
    return estimate


estimate_run = sync_twin(aestimate_run)
