"""Retries and backoff around a transport, inside the limits, each attempt timed out."""

from __future__ import annotations

import random
from dataclasses import dataclass

import anyio

from .._errors import ScorekitError
from ._completion import Completion, ModelRequest, Transport, TransportError
from ._limits import Limits


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry.

    Attributes:
        max_retries: Retries after the first attempt (retryable errors only).
        backoff: Base of the exponential backoff in seconds (doubled per retry, jitter
            up to the same again).
        max_wait: Cap on any single wait, ``Retry-After`` included.
    """

    max_retries: int = 4
    backoff: float = 0.5
    max_wait: float = 60.0

    def wait_before(self, retry: int, error: TransportError) -> float:
        """Seconds to wait before retry number ``retry`` (1-based) after ``error``."""
        if error.retry_after is not None:
            return min(error.retry_after, self.max_wait)
        base = self.backoff * 2 ** (retry - 1)
        return min(base + random.uniform(0, base), self.max_wait)


@dataclass
class Attempts:
    """Requests handed to the transport so far (read after a failure or cancellation).

    Attributes:
        sent: Requests handed to the transport.
        abandoned: Of those, requests cut off while in flight (the call's timeout, or a
            cancellation): the provider may have answered, and billed, them anyway.
    """

    sent: int = 0
    abandoned: int = 0


def count_prompt_tokens(request: ModelRequest) -> int:
    """The request's prompt tokens by litellm's counter (its tokenizer for the model);
    about four characters a token when litellm cannot count them."""
    try:
        from ._litellm import import_litellm

        return int(import_litellm().token_counter(model=request.model, messages=request.messages))
    except Exception:
        characters = sum(len(str(m.get("content", ""))) for m in request.messages)
        return max(1, characters // 4)


def count_tokens_unloaded(request: ModelRequest) -> int:
    """`count_prompt_tokens` once litellm is loaded; before, tiktoken's count with
    OpenAI's chat overhead (`count_tokens_offline`), so that counting does not import it."""
    from ._listing import count_tokens_offline
    from ._litellm import litellm_loaded

    if litellm_loaded():
        return count_prompt_tokens(request)
    return count_tokens_offline(request.model, request.messages)


async def send_with_retries(
    transport: Transport,
    request: ModelRequest,
    policy: RetryPolicy,
    limits: Limits,
    attempts: Attempts,
) -> Completion:
    """Send ``request`` until it succeeds, a non-retryable error comes, or retries run out.

    Each attempt holds a slot of ``limits`` and is cut off after ``request.timeout``
    seconds; waits between attempts hold no slot.

    Raises:
        TransportError: The last error (a timeout is kind ``"timeout"``).
    """
    prepare = getattr(transport, "prepare", None)
    if prepare is not None:  # e.g. start helper processes: seconds, not timed
        await prepare(request)
    bucket = limits.tokens
    estimate = count_prompt_tokens(request) if bucket is not None else 0
    while True:
        try:
            async with limits.slot():
                if bucket is not None:
                    await bucket.take(estimate)
                attempts.sent += 1
                try:
                    with anyio.fail_after(request.timeout):
                        completion = await transport.complete(request)
                except (TimeoutError, anyio.get_cancelled_exc_class()):
                    attempts.abandoned += 1
                    raise
                if bucket is not None:
                    used = completion.prompt_tokens or estimate
                    bucket.charge(used - estimate + completion.completion_tokens)
                return completion
        except TransportError as exc:
            error = exc
            if bucket is not None and exc.kind == "rate_limit" and "token" in str(exc).lower():
                bucket.slow_down(exc.retry_after)
        except ScorekitError:  # ours already (e.g. helper processes that keep exiting)
            raise
        except TimeoutError:
            error = TransportError("timeout", f"no answer within {request.timeout:g} s")
        except Exception as exc:  # a custom transport that raised something else
            error = TransportError("unknown", f"{type(exc).__name__}: {exc}")
        if not error.retryable or attempts.sent > policy.max_retries:
            raise error
        await anyio.sleep(policy.wait_before(attempts.sent, error))
