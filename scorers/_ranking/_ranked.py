"""The public batch API a ranking measure is computed on: a parsed `Metric`, the queries
of a run as one `RankedBatch`, and a measure as a `Measure` entry of the `MEASURES`
registry.

Queries are laid out as CSR arrays: the judged grade of every ranked document, query
after query, in rank order, plus each query's offsets. A measure is a function of the
batch and the metric returning one value per query, a few numpy passes over those
arrays; sums run in rank order, as trec_eval's loops do, so values equal trec_eval's to
the last bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .._errors import ConfigError
from .._registries import Registry

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

NONPOOL = -1.0
"""The grade of a ranked document the qrels do not judge (trec_eval's "not in the pool")."""


@dataclass(frozen=True)
class Metric:
    """A parsed metric name.

    Attributes:
        name: The name as given (``"ndcg@10"`` or ``"ndcg_cut_10"``); results use it.
        kind: The measure: a name of the `MEASURES` table.
        k: The cutoff, for the ``*_k`` measures.
        level: The recall level, for ``iprec_at_recall`` and ``Rprec_mult``.
        params: trec_eval's parameters of the measures that take some (``ndcg.1=3,2=9``,
            ``rbp.p=0.8``, ``utility.1,-1,0,0``, ``11pt_avg.0.2,0.5``) as the text after
            the dot; empty for the defaults.
    """

    name: str
    kind: str
    k: int | None = None
    level: float | None = None
    params: str = ""


@dataclass
class RankedBatch:
    """Ranked, judged documents of many queries as CSR arrays.

    Attributes:
        offsets: ``offsets[q]:offsets[q + 1]`` are query q's ranked positions.
        grades: The qrels grade of each ranked document: -1 when the qrels do not
            judge it, -2 when they give it a negative grade (in the pool, unjudged).
        num_rel: Relevant documents per query in the qrels (retrieved or not).
        ideal_offsets: CSR offsets of ``ideal_gains``.
        ideal_gains: Each query's positive qrels grades, largest first.
        relevance_level: A document is relevant when its grade is at least this.
        num_nonrel: Judged non-relevant documents per query in the qrels (bpref).
        judged_offsets: CSR offsets of ``judged_grades``.
        judged_grades: Every qrels grade of each query (the gain measures' levels).
        missing: Judged queries the run does not rank (trec_eval ``-c``), ranked as
            trec_eval ranks them: one document nobody judged.
        collection_size: Documents in the collection (trec_eval ``-N``, for utility).
        memo: Arrays a measure computed once for the batch and others reuse, by name.
    """

    offsets: np.ndarray
    grades: np.ndarray
    num_rel: np.ndarray
    ideal_offsets: np.ndarray
    ideal_gains: np.ndarray
    relevance_level: float = 1.0
    num_nonrel: np.ndarray | None = None
    judged_offsets: np.ndarray | None = None
    judged_grades: np.ndarray | None = None
    missing: np.ndarray | None = None
    collection_size: int = 0
    memo: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def n_queries(self) -> int:
        """How many queries the batch holds."""
        return len(self.num_rel)

    @cached_property
    def query(self) -> np.ndarray:
        """The query index of every ranked position."""
        return np.repeat(np.arange(self.n_queries), np.diff(self.offsets))

    @cached_property
    def rank0(self) -> np.ndarray:
        """The 0-based rank of every ranked position within its query."""
        return np.arange(len(self.grades)) - self.offsets[:-1][self.query]

    @cached_property
    def relevant(self) -> np.ndarray:
        """Whether each ranked document is relevant."""
        return self.grades >= self.relevance_level

    @cached_property
    def hits(self) -> np.ndarray:
        """Relevant documents at or above each ranked position, within its query."""
        running = np.cumsum(self.relevant, dtype=np.int64)
        before = np.concatenate(([0], running))[self.offsets[:-1]]
        return running - before[self.query]

    def per_query(self, weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The sum of ``weights`` (one per ranked position) over each query's positions,
        those where ``mask`` holds if given."""
        query = self.query
        if mask is not None:
            query, weights = query[mask], weights[mask]
        return np.bincount(query, weights=weights, minlength=self.n_queries).astype(np.float64)

    def over_num_rel(self, values: np.ndarray) -> np.ndarray:
        """Each query's value over its relevant documents (0 for a query without)."""
        num_rel = self.num_rel
        out = np.zeros(self.n_queries)
        np.divide(values, num_rel, out=out, where=num_rel > 0)
        return out

    def relevant_in_top(self, k: np.ndarray | int) -> np.ndarray:
        """Relevant documents among each query's top ``k`` (a number, or one per query):
        the running count at its ``min(k, ranked)``-th position."""
        ranked = np.diff(self.offsets)
        depth = np.minimum(ranked, k)
        out = np.zeros(self.n_queries)
        some = depth > 0
        out[some] = self.hits[self.offsets[:-1][some] + depth[some] - 1]
        return out

    def dcg(
        self, rank0: np.ndarray, gains: np.ndarray, query: np.ndarray, k: int | None
    ) -> np.ndarray:
        """Each query's discounted cumulative gain (log2 discount) of positions given
        by their rank, gain and query, down to rank ``k`` if given."""
        keep = gains > 0
        if k is not None:
            keep &= rank0 < k
        terms = gains[keep] / np.log2(rank0[keep] + 2.0)
        return np.bincount(query[keep], weights=terms, minlength=self.n_queries)

    def ideal_positions(self) -> tuple[np.ndarray, np.ndarray]:
        """The query and 0-based rank of every entry of ``ideal_gains``."""
        if "ideal" not in self.memo:
            lengths = np.diff(self.ideal_offsets)
            query = np.repeat(np.arange(self.n_queries), lengths)
            rank0 = np.arange(len(self.ideal_gains)) - self.ideal_offsets[:-1][query]
            self.memo["ideal"] = query
            self.memo["ideal_rank0"] = rank0
        return self.memo["ideal"], self.memo["ideal_rank0"]

    def values(self, metric: Metric) -> np.ndarray:
        """The metric's value for every query, as its `MEASURES` entry computes it."""
        measure = measure_of(metric.kind)
        assert measure.compute is not None
        values = measure.compute(self, metric)
        if measure.zero_without_ranking and self.missing is not None and self.missing.any():
            values = np.where(self.missing, 0.0, values)
        return values


Compute = Callable[[RankedBatch, Metric], "np.ndarray"]
"""``compute(batch, metric)``: the measure's value for every query of the batch."""


@dataclass(frozen=True)
class Measure:
    """One ranking measure: everything scorekit needs of it.

    Attributes:
        name: Its name (trec_eval's for its own: ``P``, ``map``, ``ndcg_cut``).
        compute: ``compute(batch, metric)`` → one value per query; None for a line the
            command prints itself (``runid``, ``num_q``, ``relstring``).
        cutoffs: A family's default cutoffs (``P_5``, ``P_10``...), as trec_eval prints
            them; empty for a measure without.
        fraction: The cutoffs are fractions (recall levels), not ranks.
        max_cutoff: The largest cutoff accepted (1 for a recall level), if any.
        params: trec_eval prints the parameters given after the name (``ndcg_1=3,2=9``).
        mean: How the value over all queries is taken: their ``"mean"``, ``"sum"`` (a
            count) or ``"geometric"`` mean (of the floored per-query values).
        per_item: A score of one query in [0, 1], so a per-item scorer may compute it.
        bounds: The range of one query's value (a comparison's interval for a change is
            clipped to ``±(high - low)``), None when it has none (counts, gains, logs).
        exact_ties: It tells non-relevant documents of different grades apart anywhere
            (the batch then keeps exact tie order).
        judged_only: It tells judged non-relevant documents from unjudged ones.
        sets: The named sets of ``-m`` that hold it (``official``, ``all_trec``, ``set``).
        zero_without_ranking: trec_eval ``-c`` sets it to 0 for a judged query the run
            does not rank, after computing it on its stand-in ranking.
        positive_judgements_with_c: Under trec_eval ``-c`` its total is the number of
            positive judgements in the qrels (``num_rel``'s rule).
    """

    name: str
    compute: Compute | None
    cutoffs: tuple[str, ...] = ()
    fraction: bool = False
    max_cutoff: float | None = None
    params: bool = False
    mean: Literal["mean", "sum", "geometric"] = "mean"
    per_item: bool = True
    bounds: tuple[float, float] | None = (0.0, 1.0)
    exact_ties: bool = False
    judged_only: bool = False
    sets: frozenset[str] = frozenset({"all_trec"})
    zero_without_ranking: bool = False
    positive_judgements_with_c: bool = False


MEASURES: Registry[Measure] = Registry(
    "measures",
    "ranking measure",
    lambda m: f"{m.name} ({m.mean}{', per item' if m.per_item else ''})",
)
"""Every measure by name, in the order trec_eval prints them (then registered ones: the
modules of ``scorekit.measures`` entry points register theirs on first use)."""


def register_measure(measure: Measure, *, override: bool = False) -> Measure:
    """Add ``measure`` to the table (after trec_eval's own; a name given again replaces
    the entry in its place).

    Args:
        measure: The measure.
        override: Replace one of trec_eval's own measures (``map``...) on purpose;
            without it that is refused.

    Raises:
        ConfigError: For a name that is not a word (letters, digits, ``_``), or one of
            scorekit's own without ``override``.
    """
    if not measure.name.replace("_", "").isalnum():
        raise ConfigError(f"a measure's name is letters, digits and '_'; got {measure.name!r}")
    module = getattr(measure.compute, "__module__", None) or "scorers"
    origin = None if module.startswith("scorers") else module
    return MEASURES.add(measure.name, measure, replace=True, override=override, origin=origin)


def measure_of(kind: str) -> Measure:
    """The table entry of a measure.

    Raises:
        ConfigError: For a name the table does not hold.
    """
    found = MEASURES.load().get(kind)
    if found is None or found.compute is None:
        raise ConfigError(f"unknown measure kind {kind!r}")
    return found


OWN: list[Measure] = []
"""trec_eval's measures as their modules declare them (`own`); `_measures` registers
them in trec_eval's print order."""


F = TypeVar("F", bound=Callable[..., "np.ndarray"])


def own(name: str, **fields: Any) -> Callable[[F], F]:
    """Declare the decorated function as the compute of scorekit's measure ``name``, with
    the `Measure` fields given."""

    def declare(compute: F) -> F:
        OWN.append(Measure(name, compute, **fields))
        return compute

    return declare
