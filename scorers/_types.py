"""Public data shapes: every value that crosses scorekit's API is one of these models."""

from __future__ import annotations

import functools
import html
import math
from collections.abc import Mapping
from itertools import chain, repeat
from operator import contains
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    PrivateAttr,
    StrictStr,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    field_serializer,
    field_validator,
)
from pydantic_core import to_jsonable_python


def id_string(value: Any) -> str | None:
    """An id as scorekit compares it: strings as they are, ``1`` and ``1.0`` as ``"1"``,
    other numbers and values by ``str``; None stays None."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(int(value)) if float(value).is_integer() else str(value)
    return str(value)


# a str is taken by pydantic-core itself; only other values reach the Python function
_ChunkId = Annotated[
    StrictStr | Annotated[Any, PlainValidator(id_string)] | None,
    WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]}),
]


class Chunk(BaseModel):
    """One retrieved or reference passage.

    Attributes:
        id: Identifier used by the ID-based and ranking metrics; ints are kept as strings so
            that ``1`` and ``"1"`` compare equal.
        text: The passage text shown to the judge and used by string similarity.
        metadata: Anything else (source, score, ...); never read by the metrics.
    """

    model_config = ConfigDict(frozen=True)

    id: _ChunkId = Field(default=None, union_mode="left_to_right")
    text: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


_TEXT_KEYS = ("text", "content", "page_content")
_ONLY_CHUNKS = {Chunk}
_PLAIN_KEYS = frozenset({"id", "text", "metadata"})


def to_chunk(value: Any) -> Chunk:
    """Turn a string, dict or `Chunk` into a `Chunk`.

    Dicts may use ``id``/``doc_id``/``chunk_id`` for the id and ``text``/``content``/
    ``page_content`` for the text; other keys go to ``metadata``.

    Raises:
        ConfigError: If the value is of none of those shapes.
    """
    from ._errors import ConfigError

    if isinstance(value, Chunk):
        return value
    if isinstance(value, str):
        return Chunk(text=value)
    if isinstance(value, Mapping):
        data = dict(value)
        chunk_id = next((data.pop(k) for k in ("id", "doc_id", "chunk_id") if k in data), None)
        text = next((data.pop(k) for k in _TEXT_KEYS if k in data), None)
        if text is None:
            raise ConfigError(
                f"a context dict needs a 'text' (or 'content') field; got keys {sorted(value)}"
            )
        metadata = data.pop("metadata", {}) or {}
        return Chunk(id=chunk_id, text=_chunk_text(text), metadata={**data, **metadata})
    raise ConfigError(
        f"a context item must be a str, a dict with 'text', or a Chunk; got {type(value).__name__}"
    )


def _chunk_text(text: Any) -> str:
    from ._errors import ConfigError

    if isinstance(text, str):
        return text
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        if not math.isfinite(text):
            raise ConfigError(f"a chunk's text is {text!r}, not text (a missing value?)")
        return str(text)
    raise ConfigError(f"a chunk's text must be a string; got {type(text).__name__}")


def has_text_field(value: Mapping[Any, Any]) -> bool:
    """Whether a dict names a chunk's text (``text``, ``content`` or ``page_content``)."""
    return any(k in value for k in _TEXT_KEYS)


def to_chunks(values: Any) -> list[Chunk]:
    """Turn a list of context items into `Chunk`s (see `to_chunk`).

    A single dict with a text field is one chunk (never a list of its keys); a single
    string or any other non-list value is an error.
    """
    if type(values) is list:  # the common case first: an ABC isinstance check costs more
        if _ONLY_CHUNKS == set(map(type, values)):  # validated already (an item's own)
            return values
        if _plain_dicts(values):
            try:  # the [{"id", "text"}, ...] shape: one validation call for the list
                return _plain_chunks().validate_python(values)
            except ValidationError:
                pass  # to_chunk below names the problem
        return [to_chunk(v) for v in values]
    from ._errors import ConfigError

    if isinstance(values, Mapping):
        if has_text_field(values):
            return [to_chunk(values)]
        raise ConfigError(
            "context must be a list of chunks; got a single dict without a 'text' (or "
            f"'content') field (keys {sorted(map(str, values))}). Pass [{{'text': ...}}, ...]"
        )
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ConfigError(
            f"context must be a list of str / dict / Chunk, got {type(values).__name__}"
        )
    return [to_chunk(v) for v in values]


def _plain_dicts(values: list[Any]) -> bool:
    """Whether every item looks like ``{"id", "text", "metadata"}`` with a text: no other
    key anywhere, tested in C. An item of another type fails a test or the validation
    that follows (and `to_chunk` then names it)."""
    try:
        return _PLAIN_KEYS.issuperset(chain.from_iterable(values)) and all(
            map(contains, values, repeat("text"))
        )
    except TypeError:  # an item that is not iterable
        return False


@functools.cache
def _plain_chunks() -> TypeAdapter[list[Chunk]]:
    return TypeAdapter(list[Chunk])


def _all_strings(value: Any) -> bool:
    """Whether ``value`` is a list of strings only (tested in C: a join fails on anything
    else)."""
    if type(value) is not list:
        return False
    try:
        "".join(value)
    except TypeError:
        return False
    return True


def _coerce_context(value: Any) -> Any:
    return None if value is None else to_chunks(value)


def _coerce_reference_texts(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        raise ValueError("reference_contexts must be a list of strings, not one string")
    if _all_strings(value):
        return value  # the common case, as it is: pydantic's list[str] copies it
    return [v if isinstance(v, str) else to_chunk(v).text for v in value]


def _coerce_reference_ids(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return {id_string(k): float(v) for k, v in value.items()}
    if isinstance(value, str):
        raise ValueError("reference_context_ids must be a list (or a dict id -> grade)")
    if _all_strings(value):
        return value  # the common case, as it is: pydantic's list[str] copies it
    return [id_string(v) for v in value]


ContextList = Annotated[list[Chunk] | None, BeforeValidator(_coerce_context)]
"""Retrieved chunks; str / dict / `Chunk` items accepted."""
ReferenceTexts = Annotated[list[str] | None, BeforeValidator(_coerce_reference_texts)]
"""Gold passages as text; dicts and `Chunk`s give their text."""
ReferenceIds = Annotated[
    list[str] | dict[str, float] | None, BeforeValidator(_coerce_reference_ids)
]
"""Gold ids (kept as strings): a list, or a dict id -> relevance grade."""


class AgentOutput(BaseModel):
    """What an agent returned: its final text and the full message history.

    Attributes:
        text: The final assistant text.
        messages: The whole conversation in OpenAI chat format, tool calls and results
            included; context extractors read it.
        usage: Token totals over every model call of the generation.
        steps: Model calls the tool loop made.
        finish_reason: ``"stop"``, or ``"max_steps"`` when the loop was cut off.
        calls: One `JudgeCall` per model call (tokens, latency, cost).
    """

    text: str = ""
    messages: list[dict[str, Any]] = Field(default_factory=list)
    usage: dict[str, int] = Field(default_factory=dict)
    steps: int = 0
    finish_reason: str = "stop"
    calls: list[JudgeCall] = Field(default_factory=list)

    def __str__(self) -> str:
        return self.text


class ScorerRun(BaseModel):
    """Everything one scorer run may look at.

    Attributes:
        input: The user input: a string or a chat-message history.
        output: The response: a string, a message history or an `AgentOutput`.
        ground_truth: The reference answer (``groundTruth`` accepted).
        context: Retrieved chunks supplied with the run, in rank order; when given they win
            over the scorer's own context options.
        reference_contexts: Gold passages, as text.
        reference_context_ids: Gold passage ids: a list, or a dict id -> relevance grade.
        claims: Reference claims written by a person (RAGChecker-style); context recall
            then judges these instead of extracting claims from the ground truth.
        request_context: Free-form data for custom steps.
        run_id: An identifier carried through to logs.
    """

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    input: Any = None
    output: Any = None
    ground_truth: str | None = Field(default=None, alias="groundTruth")
    context: ContextList = None
    reference_contexts: ReferenceTexts = None
    reference_context_ids: ReferenceIds = None
    claims: list[str] | None = None
    request_context: dict[str, Any] = Field(default_factory=dict)
    run_id: str | None = None

    @field_validator("claims")
    @classmethod
    def _claims_are_statements(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(not claim.strip() for claim in value):
            raise ValueError("claims must be non-empty strings")
        return value

    _memo: dict[Any, Any] = PrivateAttr(default_factory=dict)

    def memo(self) -> dict[Any, Any]:
        """A cache for values that several scorers of this run compute alike (the
        similarity matrix of its chunks and references); dropped with the run."""
        return self._memo


class JudgeCall(BaseModel):
    """One call to the judge model (or one cache hit standing in for it).

    Attributes:
        step: The pipeline step that made the call.
        model: The litellm model string.
        prompt_tokens: Prompt tokens reported by the provider (0 on a cache hit).
        completion_tokens: Completion tokens reported by the provider (0 on a cache hit).
        cost: Cost in USD when litellm knows the model's price, else None.
        latency_s: Wall time of the call including retries and the repair round.
        attempts: HTTP requests made (retries and the repair round included; 0 when cached).
        cached: Whether the answer came from the on-disk cache.
        messages: The exact messages sent.
        response: The raw text the model returned (the validated JSON when cached).
        error: Why the call failed, when it did (its attempts still count as requests).
    """

    step: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    latency_s: float = 0.0
    attempts: int = 0
    cached: bool = False
    messages: list[dict[str, Any]] = Field(default_factory=list)
    response: str = ""
    error: str | None = None


class ScoreResult(BaseModel):
    """The outcome of one scorer run.

    Attributes:
        scorer_id: Which scorer produced it.
        score: A float in ``[0, scale]``; 0 when skipped or failed.
        reason: Human-readable explanation of the score.
        status: ``"scored"``, ``"skipped"`` (not applicable, e.g. no ground truth) or
            ``"error"``.
        details: Every step's result and the prompts sent, keyed by step name. Values are
            kept as the steps returned them (pydantic models as dicts, numpy arrays as
            arrays); JSON output turns arrays into nested lists.
        judge_calls: One entry per model call.
        error: The error message when ``status == "error"``.
        duration_s: Wall time of the run.
    """

    scorer_id: str
    score: float = 0.0
    reason: str = ""
    status: Literal["scored", "skipped", "error"] = "scored"
    details: dict[str, Any] = Field(default_factory=dict)
    judge_calls: list[JudgeCall] = Field(default_factory=list)
    error: str | None = None
    duration_s: float = 0.0

    @field_serializer("details", when_used="json")
    def _details_as_json(self, details: dict[str, Any]) -> Any:
        return to_jsonable_python(details, fallback=_json_fallback)

    def __float__(self) -> float:
        return self.score

    def __repr__(self) -> str:
        reason = " ".join(self.reason.split())
        if len(reason) > 80:
            reason = reason[:79] + "…"
        error = f", error={self.error!r}" if self.error else ""
        return (
            f"ScoreResult(scorer_id={self.scorer_id!r}, score={self.score:.4g}, "
            f"status={self.status!r}, reason={reason!r}, calls={len(self.judge_calls)}{error})"
        )

    def _repr_html_(self) -> str:
        """Score, reason and the claims / chunk verdicts, for notebooks."""
        parts = [
            f"<p><b>{html.escape(self.scorer_id)}</b>: {self.score:.4g} "
            f"<i>({html.escape(self.status)})</i></p>",
            f"<pre style='white-space:pre-wrap'>{html.escape(self.reason)}</pre>",
        ]
        found = self.details.get("claims_used") or self.details.get("claims")
        claims = found.get("claims") if isinstance(found, dict) else None
        verdicts = self.details.get("verdicts")
        listed = verdicts.get("verdicts") if isinstance(verdicts, dict) else None
        if listed:
            lines = []
            for verdict in listed:
                index = verdict.get("claim_index", verdict.get("context_index"))
                label = (
                    claims[index]
                    if claims and isinstance(index, int) and 0 <= index < len(claims)
                    else f"#{index}"
                )
                lines.append(
                    f"<tr><td>{html.escape(str(label))}</td>"
                    f"<td>{html.escape(str(verdict.get('verdict')))}</td>"
                    f"<td>{html.escape(str(verdict.get('reason', '')))}</td></tr>"
                )
            kind = "claim" if claims else "chunk"
            parts.append(
                f"<table><thead><tr><th>{kind}</th><th>verdict</th><th>reason</th></tr>"
                f"</thead><tbody>{''.join(lines)}</tbody></table>"
            )
        if self.error:
            parts.append(f"<p style='color:#b00'>{html.escape(self.error)}</p>")
        return "".join(parts)


def _json_fallback(value: Any) -> Any:
    """JSON for values pydantic does not know: numpy arrays and scalars, else the repr."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return repr(value)
