"""What a judge's calls cost: its price per token, and a run budget's reservations."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._errors import BudgetExceededError, JudgeSetupError
from ._completion import ModelRequest
from ._limits import Budget, current_budget, current_ledger
from ._listing import listed_price
from ._litellm import import_litellm
from ._retry import Attempts, count_prompt_tokens, count_tokens_unloaded


def price_per_token(model: str, declared: Mapping[str, Any]) -> tuple[float, float] | None:
    """USD per prompt and per completion token of ``model``: ``declared``
    (``input_cost_per_token`` / ``output_cost_per_token``) or litellm's price list (read
    from its file; litellm is imported only for a model it does not list by that name);
    None when unknown."""
    if "input_cost_per_token" in declared and "output_cost_per_token" in declared:
        return float(declared["input_cost_per_token"]), float(declared["output_cost_per_token"])
    listed = listed_price(model)
    if listed is not None:
        return listed
    try:
        litellm = import_litellm()
        prompt, _ = litellm.cost_per_token(model=model, prompt_tokens=1, completion_tokens=0)
        _, completion = litellm.cost_per_token(model=model, prompt_tokens=0, completion_tokens=1)
    except Exception:
        return None
    return float(prompt), float(completion)


class Charge:
    """A call's cost as it settles: set ``cost`` to the provider's (None: the estimate)."""

    def __init__(self) -> None:
        self.cost: float | None = None


@contextlib.contextmanager
def charged(
    request: ModelRequest,
    price: Callable[[], tuple[float, float] | None],
    max_tokens: int | None,
    attempts: Attempts,
) -> Iterator[Charge]:
    """Reserve the call's estimated cost in the run's budget (when a run set one, see
    `run_budget`) and settle it on exit: at the `Charge`'s cost, plus the estimate for
    each attempt that was cut off in flight (the provider may bill it), or at just those
    when the call failed or was cancelled."""
    charge = Charge()
    budget = current_budget()
    if budget is None:
        yield charge
        return
    estimate = reserve(budget, request, price(), max_tokens)
    try:
        yield charge
    except BaseException:
        budget.settle(estimate, estimate * attempts.abandoned)
        raise
    answered = estimate if charge.cost is None else charge.cost
    budget.settle(estimate, answered + estimate * attempts.abandoned)


def abandoned_cost(
    request: ModelRequest, judge: Any, attempts: Attempts
) -> tuple[int, float | None]:
    """The prompt tokens sent and the cost of a call that got no answer: what its
    attempts cut off in flight may be billed (their prompts, counted by us, and no
    completion) at ``judge.price_per_token()``; cost None when the price is unknown."""
    declared = judge.litellm_kwargs
    if not attempts.sent or (
        "litellm" not in sys.modules  # no request went through litellm: no price list
        and not ("input_cost_per_token" in declared and "output_cost_per_token" in declared)
    ):
        return 0, None
    try:
        price = judge.price_per_token()
        tokens = count_prompt_tokens(request) * attempts.abandoned if attempts.abandoned else 0
    except Exception:  # an estimate must not hide the call's own error
        return 0, None
    return tokens, None if price is None else tokens * price[0]


def reserve(
    budget: Budget,
    request: ModelRequest,
    price: tuple[float, float] | None,
    max_tokens: int | None,
) -> float:
    """The call's estimated cost (its prompt tokens, and ``max_tokens`` — 512 when unset —
    of completion), reserved in ``budget``.

    Raises:
        JudgeSetupError: When the price is unknown (every call would fail alike).
        BudgetExceededError: When the reservation would pass the budget.
    """
    if price is None:
        raise JudgeSetupError(
            f"max_cost needs the price of {request.model!r}, which litellm does not know: "
            "declare it, e.g. Judge(..., input_cost_per_token=1.5e-7, "
            "output_cost_per_token=6e-7)",
            kind="budget",
            model=request.model,
        )
    completion_tokens = int(max_tokens or 512)
    # before the first request litellm may not be loaded: count without importing it
    # (seconds, on the event loop, inside the item's timeout)
    prompt_tokens = count_tokens_unloaded(request)
    estimate = prompt_tokens * price[0] + completion_tokens * price[1]
    if not budget.reserve(estimate):
        raise BudgetExceededError(
            f"max_cost ${budget.max_cost:g} reached: ${budget.spent:.4f} spent, "
            f"${budget.reserved:.4f} in flight, and the next call would cost about "
            f"${estimate:.4f}; no new model call was started",
            spent=budget.spent,
            max_cost=budget.max_cost,
            model=request.model,
        )
    ledger = current_ledger()
    if ledger is not None:
        ledger.reserved += estimate
    return estimate
