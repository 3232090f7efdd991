"""Pydantic models built from values already checked, as ``model_construct`` builds them
but without its per-call walk over the fields: the defaults are read once per class.

For the hot paths of model-free runs only (an item's run, a fast path's result, an item's
result), where every value comes from a validated model or from scorekit's own code.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)

_IMMUTABLE = (type(None), bool, int, float, str, bytes, tuple, frozenset)


def _same(value: Any) -> Any:
    return value


def builder(cls: type[M]) -> Callable[..., M]:
    """``build(**values)``: a ``cls`` holding ``values`` (every required field among
    them) and the defaults of the rest, unvalidated; equal to
    ``cls.model_construct(**values)``.

    Raises:
        TypeError: When a required field is missing (at build time).
    """
    defaults: dict[str, Callable[[], Any]] = {}
    required: set[str] = set()
    for name, field in cls.model_fields.items():
        if field.is_required():
            required.add(name)
        elif field.default_factory is not None:
            defaults[name] = field.default_factory  # type: ignore[assignment]
        elif isinstance(field.default, _IMMUTABLE):
            defaults[name] = functools.partial(_same, field.default)
        else:
            defaults[name] = functools.partial(copy.deepcopy, field.default)
    order = list(cls.model_fields)
    private: dict[str, Callable[[], Any]] = {}
    for name, attr in cls.__private_attributes__.items():
        factory = getattr(attr, "default_factory", None)
        if factory is not None:
            private[name] = factory
        elif getattr(attr, "default", PydanticUndefined) is not PydanticUndefined:
            private[name] = functools.partial(copy.deepcopy, attr.default)
    new, set_attribute = cls.__new__, object.__setattr__

    def build(**values: Any) -> M:
        if not required.issubset(values):
            raise TypeError(f"{cls.__name__} needs {sorted(required - set(values))}")
        found = {name: values[name] if name in values else defaults[name]() for name in order}
        model = new(cls)
        set_attribute(model, "__dict__", found)
        set_attribute(model, "__pydantic_fields_set__", set(values))
        set_attribute(model, "__pydantic_extra__", None)
        set_attribute(
            model,
            "__pydantic_private__",
            {name: make() for name, make in private.items()} if private else None,
        )
        return model

    return build


__all__ = ["builder"]
