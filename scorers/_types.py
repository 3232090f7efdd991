"""Public data shapes: every value that crosses scorekit's API is one of these models."""

from __future__ import annotations

import html
import math
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_serializer,
    field_validator,
    model_validator,
)
from pydantic_core import to_jsonable_python

from ._chunks import (
    Chunk,
    ContextList,
    ReferenceIds,
    ReferenceTexts,
    RetrievedIds,
    Text,
    to_chunks,
)

ONE_RETRIEVAL = (
    "give what was retrieved once: 'context' (chunks, with text) or 'retrieved_context_ids' "
    "(ids only, in rank order), not both"
)

__all__ = [
    "AgentOutput",
    "Chunk",
    "ContextList",
    "JudgeCall",
    "ReferenceIds",
    "ReferenceTexts",
    "RetrievedIds",
    "ScoreResult",
    "ScorerRun",
    "to_chunks",
]


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
        retrieved_context_ids: What was retrieved as ids only, in rank order (no text):
            the ID and ranking scorers read it; text scorers skip such a run ("no
            retrieved text"). Not together with ``context``.
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
    ground_truth: Text | None = Field(default=None, alias="groundTruth")
    context: ContextList = None
    retrieved_context_ids: RetrievedIds = None
    reference_contexts: ReferenceTexts = None
    reference_context_ids: ReferenceIds = None
    claims: list[Text] | None = None
    request_context: dict[str, Any] = Field(default_factory=dict)
    run_id: str | None = None

    @model_validator(mode="after")
    def _one_retrieval(self) -> ScorerRun:
        if self.context is not None and self.retrieved_context_ids is not None:
            raise ValueError(ONE_RETRIEVAL)
        return self

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
        score: A float in ``[0, scale]``; 0 when skipped (the seed's rule); None when the
            run failed (``status="error"``): a failure carries no number (``null`` in
            results files, NaN in pandas and in ``float(result)``).
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
    score: float | None = Field(0.0, allow_inf_nan=False)
    reason: str = ""
    status: Literal["scored", "skipped", "error"] = "scored"
    details: dict[str, Any] = Field(default_factory=dict)
    judge_calls: list[JudgeCall] = Field(default_factory=list)
    error: str | None = None
    duration_s: float = 0.0

    @field_serializer("details", when_used="json")
    def _details_as_json(self, details: dict[str, Any]) -> Any:
        return to_jsonable_python(details, fallback=_json_fallback)

    @model_validator(mode="after")
    def _no_number_for_a_failure(self) -> ScoreResult:
        if self.status == "error":
            self.__dict__["score"] = None  # results files of earlier versions stored 0.0
        elif self.score is None:
            raise ValueError(f"a {self.status} result needs a score (None only for errors)")
        return self

    def __float__(self) -> float:
        return math.nan if self.score is None else self.score

    @property
    def value(self) -> float | None:
        """The score of a scored run; None when the run was skipped or failed (what
        means, comparisons and gates take)."""
        return self.score if self.status == "scored" else None

    def __repr__(self) -> str:
        reason = " ".join(self.reason.split())
        if len(reason) > 80:
            reason = reason[:79] + "…"
        error = f", error={self.error!r}" if self.error else ""
        return (
            f"ScoreResult(scorer_id={self.scorer_id!r}, score={self._shown()}, "
            f"status={self.status!r}, reason={reason!r}, calls={len(self.judge_calls)}{error})"
        )

    def _shown(self) -> str:
        return "-" if self.score is None else f"{self.score:.4g}"

    def _repr_html_(self) -> str:
        """Score, reason and the claims / chunk verdicts, for notebooks."""
        parts = [
            f"<p><b>{html.escape(self.scorer_id)}</b>: {self._shown()} "
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
    try:
        return repr(value)
    except Exception as exc:
        return f"<{type(value).__name__} object; its repr raised {type(exc).__name__}>"
