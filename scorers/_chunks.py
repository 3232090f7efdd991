"""Chunks: retrieved and reference passages, and the field types that accept them
(strings, dicts with a text, or `Chunk`s)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from itertools import chain, repeat
from operator import contains
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    StrictStr,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
)


def id_string(value: Any) -> str | None:
    """An id as scorekit compares it: strings as they are, ``1`` and ``1.0`` as ``"1"``,
    other numbers and values by ``str``; None stays None."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(int(value)) if float(value).is_integer() else str(value)
    if isinstance(value, (Mapping, list, tuple, set)):
        raise ValueError(
            f"an id must be a string or a number, not a {type(value).__name__} "
            "(graded ids are one dict id -> grade)"
        )
    try:
        return str(value)
    except Exception as exc:  # a user's object
        raise ValueError(
            f"a {type(value).__name__} id cannot be read as text ({type(exc).__name__} in "
            "its __str__)"
        ) from None


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
    if isinstance(value, (int, float)):  # a number is its text, as in every text field
        return Chunk(text=_chunk_text(value))
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
        "a context item must be a str, a number, a dict with 'text', or a Chunk; got "
        f"{type(value).__name__}"
    )


def number_as_text(value: Any) -> Any:
    """The one rule for numbers where a text is expected (a ground truth, a claim, a
    chunk's text): a finite number is its decimal text (``1879`` -> ``"1879"``); a
    boolean or NaN/infinity is refused (a mistake or a missing value, not a text); any
    other value is left to the field's own validation."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is a boolean, not a text; write it as a string")
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a text (a missing value?)")
        return str(value)
    return value


Text = Annotated[str, BeforeValidator(number_as_text)]
"""A text field that also takes a number (see `number_as_text`)."""


def _chunk_text(text: Any) -> str:
    from ._errors import ConfigError

    try:
        text = number_as_text(text)
    except ValueError as exc:
        raise ConfigError(f"a chunk's text: {exc}") from None
    if isinstance(text, str):
        return text
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
        return {id_string(k): _grade(k, v) for k, v in value.items()}
    if isinstance(value, str):
        raise ValueError("reference_context_ids must be a list (or a dict id -> grade)")
    if _all_strings(value):
        return value  # the common case, as it is: pydantic's list[str] copies it
    found = list(value)
    if _pairs(found):
        return {id_string(k): _grade(k, v) for k, v in found}  # (id, grade) pairs: a map
    return _plain_ids(
        found, "reference_context_ids is a list of ids (strings or numbers) or one dict id -> grade"
    )


def _pairs(found: list[Any]) -> bool:
    """Whether a list holds ``(id, number)`` pairs (from Python: a map given as items)."""
    return bool(found) and all(type(v) is tuple and len(v) == 2 for v in found)


def _plain_ids(found: list[Any], shape: str) -> list[str | None]:
    """A list of ids as strings; a null, list or dict in it is refused (``shape`` says
    what the field takes)."""
    for position, v in enumerate(found):
        if isinstance(v, (Mapping, list, tuple, set)) or v is None:
            raise ValueError(
                f"item {position} is {'null' if v is None else 'a ' + type(v).__name__}; {shape}"
            )
    return [id_string(v) for v in found]


def _coerce_retrieved_ids(value: Any) -> Any:
    """Retrieved ids in rank order: a list as it is; a dict id -> retrieval score (or
    ``(id, score)`` pairs) ranked by score, highest first, ties in the order given."""
    if value is None:
        return None
    if isinstance(value, str):
        raise ValueError("retrieved_context_ids must be a list of ids in rank order")
    if _all_strings(value):
        return value
    found = list(value.items()) if isinstance(value, Mapping) else list(value)
    if isinstance(value, Mapping) or _pairs(found):
        scored = [(id_string(k), _retrieval_score(k, v)) for k, v in found]
        return [k for k, _ in sorted(scored, key=lambda pair: -pair[1])]
    return _plain_ids(
        found,
        "retrieved_context_ids is a list of ids in rank order (strings or numbers) or one "
        "dict id -> retrieval score",
    )


def _retrieval_score(key: Any, score: Any) -> float:
    return _id_number(key, score, "retrieval score", "give the ids as a list, in rank order")


def _grade(key: Any, grade: Any) -> float:
    return _id_number(key, grade, "grade", "0 = not relevant; leave an unjudged id out")


def _id_number(key: Any, value: Any, what: str, hint: str) -> float:
    """The finite number an id maps to (a bool, NaN or text is refused, saying ``hint``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(
            f"the {what} of id {key!r} is {value!r}; {what}s are finite numbers ({hint})"
        )
    return float(value)


def _item_id(value: Any) -> Any:
    return "" if value is None else id_string(value)


ItemId = Annotated[str, BeforeValidator(_item_id)]
"""An item's id: a string, a number as its text (``1`` and ``1.0`` as ``"1"``), None as
``""`` (then the row number)."""
ContextList = Annotated[list[Chunk] | None, BeforeValidator(_coerce_context)]
"""Retrieved chunks; str / dict / `Chunk` items accepted."""
ReferenceTexts = Annotated[list[str] | None, BeforeValidator(_coerce_reference_texts)]
"""Gold passages as text; dicts and `Chunk`s give their text."""
ReferenceIds = Annotated[
    list[str] | dict[str, float] | None, BeforeValidator(_coerce_reference_ids)
]
"""Gold ids (kept as strings): a list, or a dict id -> relevance grade."""
RetrievedIds = Annotated[list[str] | None, BeforeValidator(_coerce_retrieved_ids)]
"""What a retriever returned as ids only, in rank order (Ragas' ``retrieved_context_ids``):
a list, or a dict id -> retrieval score ranked highest first."""
