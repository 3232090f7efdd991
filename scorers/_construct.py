"""`constructed`: a pydantic model from validated values, in half `model_construct`'s time.

pydantic's ``model_construct`` handles aliases, defaults and private attributes on every
call (~6 µs for a `ScorerRun`; this takes ~3.5); a run of a million model-free items
builds millions of models from values a validated item already vouches for. This builds
the same instance (its ``__dict__``, fields set, private attributes) from a plan made
once per class.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


class _Plan:
    """What building an instance of one class takes, read once from its fields."""

    __slots__ = ("defaults", "factories", "names", "private")

    def __init__(self, cls: type[BaseModel]) -> None:
        fields = cls.model_fields
        self.names = tuple(fields)
        self.defaults = {
            name: field.default
            for name, field in fields.items()
            if field.default_factory is None and not field.is_required()
        }
        self.factories = [
            (name, field.default_factory)
            for name, field in fields.items()
            if field.default_factory is not None
        ]
        self.private = [
            (name, attr.default_factory, attr.default)
            for name, attr in cls.__private_attributes__.items()
        ]


_PLANS: dict[type, _Plan] = {}
_SET = object.__setattr__


def constructed(cls: type[M], **values: Any) -> M:
    """An instance of ``cls`` holding ``values`` as they are (no validation), the other
    fields at their defaults: what ``cls.model_construct(**values)`` gives, for values
    given by field name. Only for values that passed ``cls``'s validation (or come from
    an instance that did)."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _Plan(cls)
    fields = {**plan.defaults, **values}
    for name, factory in plan.factories:
        if name not in values:
            fields[name] = factory()  # type: ignore[call-arg]
    model = cls.__new__(cls)
    _SET(model, "__dict__", {name: fields[name] for name in plan.names})
    _SET(model, "__pydantic_fields_set__", set(values))
    _SET(model, "__pydantic_extra__", None)
    private = None
    if plan.private:
        private = {
            name: default if factory is None else factory()  # type: ignore[call-arg]
            for name, factory, default in plan.private
        }
    _SET(model, "__pydantic_private__", private)
    return model


__all__ = ["constructed"]
