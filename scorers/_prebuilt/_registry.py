"""Where each prebuilt scorer registers itself, at its definition (inspect_ai-style)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Registered:
    """A prebuilt scorer factory under its id.

    Attributes:
        factory: ``factory(model, options)`` when ``needs_model``, else ``factory(options)``.
        needs_model: Whether the scorer calls a judge.
    """

    factory: Callable[..., Any]
    needs_model: bool

    @property
    def description(self) -> str:
        """The first line of the factory's docstring (markup dropped)."""
        first = (self.factory.__doc__ or "").strip().splitlines()[0]
        return first.replace("``", "").rstrip(".")


REGISTRY: dict[str, Registered] = {}


def prebuilt(scorer_id: str, *, needs_model: bool) -> Callable[[F], F]:
    """Register the decorated factory as the prebuilt scorer ``scorer_id``."""

    def register(factory: F) -> F:
        REGISTRY[scorer_id] = Registered(factory, needs_model)
        return factory

    return register
