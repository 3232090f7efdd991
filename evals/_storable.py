"""Whether a validated item can be stored in a results file, and which field cannot.

A results file is JSON lines: no lone surrogates, NaN, infinities or bytes, values that
read as text, and nesting up to `MAX_DEPTH`. `storable` checks an item in bulk (the
common row costs one join); `check_row` and `check_depth` name the row and field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from scorers import DatasetError

from ._files import MAX_DEPTH, too_deep
from ._item import EvalItem

_TEXT, _ID, _METADATA = attrgetter("text"), attrgetter("id"), attrgetter("metadata")


def storable(item: EvalItem) -> bool:
    """Whether JSON can store every value of a validated item (no lone surrogate, NaN or
    infinity). Typed fields are checked in bulk: their strings joined once (a lone
    surrogate makes the join fail to encode; an ASCII join needs no encoding at all)."""
    texts = [
        item.id,
        item.ground_truth or "",
        *(item.reference_contexts or ()),
        *(item.claims or ()),
    ]
    loose: list[Any] = [item.input, item.output, item.metadata]
    ids = item.reference_context_ids
    if isinstance(ids, dict):
        texts.extend(ids)
        if not all(map(math.isfinite, ids.values())):
            return False
    elif ids:
        texts.extend(ids)
    if item.context:
        texts.extend(map(_TEXT, item.context))
        texts.extend(filter(None, map(_ID, item.context)))
        loose.extend(filter(None, map(_METADATA, item.context)))
    for value in loose:
        if isinstance(value, str):
            texts.append(value)
        elif value:  # anything else: one C pass of the JSON encoder
            try:
                json.dumps(value, allow_nan=False, ensure_ascii=False, default=_loose).encode()
            except Exception:
                return False
    joined = "".join(texts)
    if joined.isascii():
        return True
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _loose(value: Any) -> str:
    """How a results file stores a value JSON does not know (its text); bytes are
    refused here, so that `check_row` names them."""
    if isinstance(value, (bytes, bytearray)):
        raise TypeError("bytes")
    return str(value)


def check_depth(where: str, item: EvalItem) -> None:
    """Raise a `DatasetError` naming a free-form field nested deeper than `MAX_DEPTH`."""
    flat = not isinstance(item.input, _NESTED) and not isinstance(item.output, _NESTED)
    if flat and not item.metadata and not any(map(_METADATA, item.context or ())):
        return  # the common row: nothing nested at all
    loose = {"input": item.input, "output": item.output, "metadata": item.metadata}
    for k, chunk in enumerate(item.context or ()):
        if chunk.metadata:
            loose[f"context[{k}].metadata"] = chunk.metadata
    for field, value in loose.items():
        if isinstance(value, (Mapping, list, tuple)) and _depth(value) > MAX_DEPTH:
            raise too_deep(where, f"field '{field}'")


_NESTED = (Mapping, list, tuple)


def _depth(value: Any) -> int:
    """How many container levels ``value`` has (walked without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        children = current.values() if isinstance(current, Mapping) else current
        stack.extend(
            (child, level + 1) for child in children if isinstance(child, (Mapping, list, tuple))
        )
    return deepest


def check_row(where: str, row: Mapping[str, Any]) -> None:
    """Raise a `DatasetError` naming the first field JSON cannot store."""
    for key, value in row.items():
        _check_storable(where, key, value)


def _check_storable(where: str, field: str, value: Any) -> None:
    """Reject what JSON cannot store: lone surrogates, NaN and infinities."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise DatasetError(
                f"{where}: field '{field}' holds a lone surrogate ({value[exc.start]!r} at "
                f"character {exc.start}), which is not valid Unicode; fix the text"
            ) from None
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise DatasetError(
                f"{where}: field '{field}' is {value!r}; JSON cannot store it (a missing value? "
                "leave the field out or use null)"
            )
    elif isinstance(value, Mapping):
        for key, inner in value.items():
            _check_storable(where, f"{field}.{key}", key)
            _check_storable(where, f"{field}.{key}", inner)
    elif isinstance(value, (list, tuple)):
        for i, inner in enumerate(value):
            _check_storable(where, f"{field}[{i}]", inner)
    elif isinstance(value, (bytes, bytearray)):
        raise DatasetError(
            f"{where}: field '{field}' holds {len(value)} bytes (a binary column?), not text; "
            "decode them (value.decode('utf-8')) or leave the field out"
        )
    elif value is not None and not isinstance(value, (bool, int)):
        try:
            str(value)
        except Exception as exc:
            raise DatasetError(
                f"{where}: field '{field}' holds a {type(value).__name__} that cannot be read "
                f"as text ({type(exc).__name__} in its __str__); store plain values"
            ) from None
