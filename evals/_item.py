"""`EvalItem`: one labelled item of a data set."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from scorers import ContextList, ItemId, ReferenceIds, ReferenceTexts, RetrievedIds, Text
from scorers._internal import ONE_RETRIEVAL


class EvalItem(BaseModel):
    """One labelled item.

    Attributes:
        id: Unique id; defaults to the row number (``"1"``, ``"2"``, ...).
        input: What the target receives (a question, or a message history).
        ground_truth: Reference answer (``groundTruth`` accepted).
        reference_contexts: Gold passages as text.
        reference_context_ids: Gold passage ids: a list, or a dict id -> grade.
        output: Precomputed response, used when there is no target.
        context: Precomputed retrieved chunks, used when the target does not return any.
        retrieved_context_ids: Precomputed retrieval as ids only, in rank order (a list,
            or a dict id -> retrieval score), when there is no text to give: the ID and
            ranking scorers read it without a chunk per id; text scorers skip the item.
            Not together with ``context``.
        claims: Reference claims written by a person; context recall judges them
            instead of extracting claims from the ground truth.
        metadata: Anything else; carried through to results.
    """

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    id: ItemId = ""
    input: Any
    ground_truth: Text | None = Field(default=None, alias="groundTruth")
    reference_contexts: ReferenceTexts = None
    reference_context_ids: ReferenceIds = None
    output: Any = None
    context: ContextList = None
    retrieved_context_ids: RetrievedIds = None
    claims: list[Text] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_retrieval(self) -> EvalItem:
        if self.context is not None and self.retrieved_context_ids is not None:
            raise ValueError(ONE_RETRIEVAL)
        return self


__all__ = ["EvalItem"]
