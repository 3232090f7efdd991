"""Every prebuilt scorer as one self-describing entry, registered at its definition
(inspect_ai-style): its id, factory, whether it needs a model, the judge contracts it
asks and how the offline rule judge answers each, and its Ragas name.

Nothing lists the scorer modules: `registry()` imports every module of this package on
first use (so a new scorer module is found by being there), then each module a
``scorekit.scorers`` entry point names (third-party scorers). A third party cannot take
an id that is already registered (scorekit's or another plugin's) or that is a ranking
metric's, unless it declares ``override=True``: then `scorekit scorers` and every
results file of a run with that scorer say so. A module that fails to import — raises,
or calls ``sys.exit`` — is reported and skipped.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .._registries import Registry

F = TypeVar("F", bound=Callable[..., Any])
Answer = Callable[[str], Any]
"""How the rule judge answers a contract: the task prompt → the answer as JSON values."""

ENTRY_POINTS = "scorekit.scorers"
"""The entry-point group of third-party scorer modules (`Registry`'s ``scorekit.<kind>``)."""


@dataclass(frozen=True)
class Registered:
    """A prebuilt scorer under its id.

    Attributes:
        scorer_id: The id (``--scorer``, `scorer_by_id`).
        factory: ``factory(model, options)`` when ``needs_model``, else ``factory(options)``.
        needs_model: Whether the scorer calls a judge.
        answers: Each judge contract it asks (by its schema's title, as ``"Claims"``)
            with the rule judge's answer to it.
        ragas: The Ragas metric it stands for, if any.
        overrides: What this entry replaced, in words, when it was registered as an
            override ("" otherwise).
    """

    scorer_id: str
    factory: Callable[..., Any]
    needs_model: bool
    answers: Mapping[str, Answer] = field(default_factory=dict)
    ragas: str | None = None
    overrides: str = ""

    @property
    def description(self) -> str:
        """The first line of the factory's docstring (markup dropped; "" without one),
        and what it overrides."""
        lines = (self.factory.__doc__ or "").strip().splitlines()
        first = lines[0].replace("``", "").rstrip(".") if lines else ""
        if self.overrides:
            first = f"{first} [OVERRIDES {self.overrides}]".lstrip()
        return first

    @property
    def origin(self) -> str:
        """The factory's ``module.name``."""
        return f"{self.factory.__module__}.{self.factory.__qualname__}"


def _import_prebuilt() -> None:
    """scorekit's own scorers: every module of this package (nothing lists them)."""
    package = sys.modules[__package__]
    for found in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{__package__}.{found.name}")


_SCORERS: Registry[Registered] = Registry(
    "scorers", "scorer", lambda entry: entry.description, own=_import_prebuilt
)
_ANSWERS: dict[str, Answer] = {}


def prebuilt(
    scorer_id: str,
    *,
    needs_model: bool,
    answers: Mapping[str, Answer] | None = None,
    ragas: str | None = None,
    override: bool = False,
) -> Callable[[F], F]:
    """Register the decorated factory as the scorer ``scorer_id`` (public as
    `scorers.register_scorer`).

    Args:
        scorer_id: The id it is built by (``scorekit run --scorer ID``).
        needs_model: Whether the factory takes a judge model first.
        answers: For an LLM scorer, how the offline rule judge answers each contract it
            asks (schema title → ``fn(task_prompt) -> answer``), so that it runs against
            `evals.testing.FakeLLMServer` and in estimates with no model.
        ragas: The Ragas metric it stands for, if any.
        override: Replace a scorer already registered under ``scorer_id`` (or the
            ranking metric of that name) on purpose; `scorekit scorers` and the results
            header of every run with it say so.

    Raises:
        ConfigError: When ``scorer_id`` is taken (by scorekit, a ranking metric, or
            another module) and ``override`` is not set; the message names both.
    """

    def register(factory: F) -> F:
        entry = Registered(scorer_id, factory, needs_model, dict(answers or {}), ragas)
        taken = _taken_by(scorer_id, entry.origin)
        if taken and not override:
            from .._errors import ConfigError

            raise ConfigError(
                f"scorer id {scorer_id!r} is {taken}; {entry.origin} cannot take it as well. "
                "Register it under another id, or pass override=True to replace it on purpose "
                "(`scorekit scorers` and every results file of a run with it then say so)"
            )
        if taken:
            entry = Registered(scorer_id, factory, needs_model, dict(answers or {}), ragas, taken)
        _SCORERS.add(scorer_id, entry, override=True, origin=entry.origin)
        _ANSWERS.update(answers or {})
        return factory

    return register


def _taken_by(scorer_id: str, origin: str) -> str:
    """Who holds ``scorer_id`` already, in words ("" when free, or held by the same
    factory: a module imported again)."""
    held = _SCORERS.get(scorer_id)
    if held is not None and held.origin != origin:
        owner = "scorekit's built-in" if held.origin.startswith("scorers.") else "registered by"
        return f"{owner} {held.origin}"
    if held is None:
        from .._errors import ConfigError
        from ._ranking import ranking_metric

        try:
            ranking_metric(scorer_id)
        except ConfigError:
            return ""
        return f"scorekit's built-in ranking metric {scorer_id} (trec_eval's definition)"
    return ""


def overrides() -> dict[str, str]:
    """The scorer ids whose entry replaced another on purpose, with the factory that
    replaced it and what it replaced (as registered so far: nothing is imported)."""
    return {
        sid: f"{entry.origin} (overrides {entry.overrides})"
        for sid, entry in _SCORERS.items()
        if entry.overrides
    }


def judge_contract(name: str, answer: Answer) -> None:
    """How the rule judge answers the contract ``name`` (a schema title) asked by a step
    that is not a registered scorer of its own (the synthesis question writer)."""
    _ANSWERS[name] = answer


def registry() -> dict[str, Registered]:
    """Every registered scorer by id (scorekit's modules and entry points read first)."""
    return dict(_SCORERS.load())


def answer_for(name: str) -> Answer | None:
    """The rule judge's answer function for the contract ``name``, if any."""
    _SCORERS.load()
    return _ANSWERS.get(name)
