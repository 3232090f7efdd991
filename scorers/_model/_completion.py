"""The transport seam: one model request in, one `Completion` out (or a `TransportError`).

A transport knows how to reach a model and nothing of the judge: no retries, limits,
caching or validation. `Judge` layers those on top. Implementations:
`LiteLLMTransport` (the default), the helper-process transport of
``Judge(client_processes=N)``, and `ScriptedTransport` for unit tests.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

ErrorKind = Literal[
    "auth",
    "permission",
    "not_found",
    "bad_request",
    "context_window",
    "rate_limit",
    "timeout",
    "connection",
    "server",
    "unknown",
]
"""What went wrong with a model request, as far as retrying and reporting care."""

RETRYABLE_KINDS: frozenset[str] = frozenset({"rate_limit", "timeout", "connection", "server"})


class ModelRequest(BaseModel):
    """One chat-completion request, as the judge hands it to a transport.

    Attributes:
        model: The litellm model string.
        messages: OpenAI-format chat messages.
        params: Every other request parameter (``temperature``, ``response_format``,
            ``tools``, ``extra_body``, ...), passed on as given.
        api_base: Base URL of the provider or server, if set.
        api_key: The API key, if given explicitly (never printed, dumped or cached).
        timeout: Seconds allowed for this attempt.
    """

    model_config = ConfigDict(frozen=True)

    model: str
    messages: list[dict[str, Any]]
    params: dict[str, Any] = Field(default_factory=dict)
    api_base: str | None = None
    api_key: str | None = Field(default=None, repr=False, exclude=True)
    timeout: float = 60.0

    @property
    def prompt(self) -> str:
        """The text of the first user message (the task, also during a repair round)."""
        for message in self.messages:
            if message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else str(content)
        return ""


class ToolCall(BaseModel):
    """A tool call the model asked for.

    Attributes:
        id: The provider's id of the call (echoed back in the tool result).
        name: The tool's name.
        arguments: The arguments as the model wrote them (usually a JSON object).
    """

    id: str
    name: str
    arguments: str = "{}"


class Completion(BaseModel):
    """What a transport returns for one successful request.

    Attributes:
        content: The assistant's text (None when it only called tools).
        tool_calls: Tool calls the model asked for.
        prompt_tokens: Prompt tokens the provider reported.
        completion_tokens: Completion tokens the provider reported.
        cost: USD when the price of the model is known, else None (never a made-up 0).
        provider_id: The provider's id of the response (e.g. ``"chatcmpl-..."``).
    """

    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    provider_id: str | None = None


class TransportError(Exception):
    """A request that failed in a transport, classified once for the layers above.

    Transports raise only this; the judge turns it into a `JudgeAPIError` subclass.

    Attributes:
        kind: What went wrong (see `ErrorKind`).
        message: The provider's or client's message.
        status: The HTTP status, when there was one.
        retry_after: Seconds the provider asked to wait, if it said.
        missing_env: Environment variables the provider's client looks for and did not
            find (for a missing API key).
    """

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        missing_env: tuple[str, ...] = (),
    ):
        super().__init__(f"{kind}: {message}")
        self.kind: ErrorKind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.missing_env = missing_env

    @property
    def retryable(self) -> bool:
        """Whether sending the request again may succeed."""
        return self.kind in RETRYABLE_KINDS


def kind_for_status(status: int | None) -> ErrorKind:
    """The `ErrorKind` of a bare HTTP status (for errors that carry nothing else)."""
    if status is None:
        return "unknown"
    table: dict[int, ErrorKind] = {
        401: "auth",
        403: "permission",
        404: "not_found",
        408: "timeout",
        409: "server",
        413: "context_window",
        429: "rate_limit",
    }
    if status in table:
        return table[status]
    if status >= 500:
        return "server"
    if 400 <= status < 500:
        return "bad_request"
    return "unknown"


@runtime_checkable
class Transport(Protocol):
    """Sends one model request. The seam between the judge and a provider.

    Implement ``complete`` to plug in any client; raise `TransportError` for failures
    (anything else is treated as a non-retryable ``"unknown"`` error). A transport may
    also define ``async prepare(request)``: the judge awaits it once before a request's
    first attempt, outside the attempt's timeout and without a concurrency slot (to
    start helper processes, or to refuse a request that cannot carry a key).
    """

    async def complete(self, request: ModelRequest) -> Completion:
        """Send ``request`` once and return the model's answer."""
        ...


__all__ = [
    "RETRYABLE_KINDS",
    "Completion",
    "ErrorKind",
    "ModelRequest",
    "ToolCall",
    "Transport",
    "TransportError",
    "kind_for_status",
]
