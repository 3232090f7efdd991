"""Retrieved ids in rank order against graded reference ids: the ID scorers' pure part."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, cast

from .._errors import ConfigError
from .._i18n import t
from .._types import Chunk, ScorerRun

_ID = attrgetter("id")


def ranked_ids(chunks: list[Chunk]) -> list[str]:
    """Chunk ids in rank order, duplicates dropped keeping the first rank.

    Raises:
        ConfigError: If a chunk has no id.
    """
    ids = list(map(_ID, chunks))
    if None in ids:
        raise ConfigError(
            f"retrieved chunk #{ids.index(None) + 1} has no id; ID-based and ranking scorers "
            "need ids: pass context as {'id': ..., 'text': ...} dicts or Chunk(id=...)"
        )
    return list(dict.fromkeys(ids))  # type: ignore[arg-type]  # no None left


def relevance_grades(run: ScorerRun) -> dict[str, float]:
    """Reference ids with their grades (1.0 for a plain list); grade <= 0 is kept as
    judged-not-relevant."""
    refs = run.reference_context_ids
    if isinstance(refs, dict):
        return dict(refs)
    return dict.fromkeys(refs or [], 1.0)


class _cached:  # functools.cached_property without its lock (Python 3.11)
    """A method computed on first access and stored on the instance."""

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.fn(instance)
        return value


@dataclass
class RankedIds:
    """The ids step's result: what was retrieved, in rank order, and what is relevant.

    Attributes:
        retrieved_ids: Retrieved chunk ids, deduplicated keeping the first rank.
        relevant_ids: Reference ids with a grade above 0.
        grades: Every judged reference id with its grade.
    """

    retrieved_ids: list[str]
    relevant_ids: list[str]
    grades: dict[str, float]

    @_cached
    def found(self) -> list[str]:
        """The retrieved ids that are relevant, in rank order."""
        relevant = set(self.relevant_ids)
        return [i for i in self.retrieved_ids if i in relevant]

    @_cached
    def others(self) -> tuple[list[str], list[str]]:
        """The relevant ids not retrieved, and the retrieved ids not relevant."""
        relevant, retrieved = set(self.relevant_ids), set(self.retrieved_ids)
        missing = [i for i in self.relevant_ids if i not in retrieved]
        return missing, [i for i in self.retrieved_ids if i not in relevant]

    def listing(self, lang: str = "en") -> str:
        """The found, missing and not relevant ids, as the reasons name them (computed
        once per language: the recall and precision reasons share it)."""
        key = f"_listing_{lang}"
        text: str | None = self.__dict__.get(key)
        if text is None:
            missing, extra = self.others
            text = self.__dict__[key] = t(
                lang, "id_listing", found=self.found, missing=missing, extra=extra
            )
        return text

    def recall(self) -> float:
        """``|set(R) ∩ set(G)| / |set(G)|``; 0 when nothing was retrieved."""
        return len(self.found) / len(self.relevant_ids) if self.retrieved_ids else 0.0

    def precision(self) -> float:
        """``|set(R) ∩ set(G)| / |set(R)|``; 0 when nothing was retrieved."""
        return len(self.found) / len(self.retrieved_ids) if self.retrieved_ids else 0.0

    def reason(self, what: str, score: float, lang: str = "en") -> str:
        """The reason of the ID ``"recall"`` or ``"precision"`` scorer in ``lang``."""
        if not self.retrieved_ids:
            return t(lang, "precision_no_context")
        found, value = len(self.found), f"{score:g}"
        if what == "recall":
            head = t(lang, "id_recall", found=found, relevant=len(self.relevant_ids), score=value)
        else:
            head = t(
                lang, "id_precision", found=found, retrieved=len(self.retrieved_ids), score=value
            )
        space = "" if head[-1] == "。" else " "  # no space after a CJK full stop
        return f"{head}{space}{self.listing(lang)}"


def rank(grades: dict[str, float], chunks: list[Chunk] | list[str]) -> RankedIds:
    """The `RankedIds` of retrieved chunks (or of ids, in rank order: a run's
    ``retrieved_context_ids``) against a run's `relevance_grades`.

    Raises:
        ConfigError: If a chunk has no id.
    """
    relevant = [i for i, g in grades.items() if g > 0]
    if _all_ids(chunks):
        return RankedIds(list(dict.fromkeys(cast("list[str]", chunks))), relevant, grades)
    return RankedIds(ranked_ids(cast("list[Chunk]", chunks)), relevant, grades)


def _all_ids(retrieved: list[Any]) -> bool:
    return not retrieved or type(retrieved[0]) is str
