"""trec_eval's measures as one table: each entry says everything scorekit needs of a
measure — how to compute it for every query of a batch, its default cutoffs, how the
mean over queries is taken, where trec_eval prints it, whether it is a per-item score,
which named sets hold it. `evaluate_ranking`, `parse_metric`, `create_ranking_scorer`'s
refusals and `scorekit trec -m` all read it; `register_measure` adds one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .._errors import ConfigError
from .._registries import Registry
from ._experimental import values as experimental_values
from ._judged import MIN_GEO_MEAN
from ._judged import values as judged_values

if TYPE_CHECKING:
    import numpy as np
else:
    from .._lazy import np

Compute = Callable[[Any, Any], "np.ndarray"]
"""``compute(batch, metric)``: the measure's value for every query of a `RankedBatch`."""


@dataclass(frozen=True)
class Measure:
    """One trec_eval measure.

    Attributes:
        name: trec_eval's name (``P``, ``map``, ``ndcg_cut``).
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
        exact_ties: It tells non-relevant documents of different grades apart anywhere
            (the batch then keeps exact tie order).
        judged_only: It tells judged non-relevant documents from unjudged ones.
        sets: The named sets of ``-m`` that hold it (``official``, ``all_trec``, ``set``).
        zero_without_ranking: trec_eval ``-c`` sets it to 0 for a judged query the run
            does not rank, after computing it on its stand-in ranking (`_batch.STAND_IN`).
    """

    name: str
    compute: Compute | None
    cutoffs: tuple[str, ...] = ()
    fraction: bool = False
    max_cutoff: float | None = None
    params: bool = False
    mean: Literal["mean", "sum", "geometric"] = "mean"
    per_item: bool = True
    exact_ties: bool = False
    judged_only: bool = False
    sets: frozenset[str] = frozenset({"all_trec"})
    zero_without_ranking: bool = False


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


def _precision(b: Any, m: Any) -> np.ndarray:
    return b._relevant_in_top(m.k) / m.k  # type: ignore[no-any-return]


def _recall(b: Any, m: Any) -> np.ndarray:
    return b._over_num_rel(b._relevant_in_top(m.k))  # type: ignore[no-any-return]


def _success(b: Any, m: Any) -> np.ndarray:
    return (b._relevant_in_top(m.k) > 0).astype(np.float64)  # type: ignore[no-any-return]


def _average_precision(b: Any, m: Any) -> np.ndarray:
    k = m.k
    if k is None and "map" in b._cache:
        return b._cache["map"]  # type: ignore[no-any-return]
    precision = b.hits / (b.rank0 + 1.0)
    mask = b.relevant if k is None else b.relevant & (b.rank0 < k)
    found = b._over_num_rel(b._per_query(precision, mask))
    if k is None:
        b._cache["map"] = found
    return found  # type: ignore[no-any-return]


def _recip_rank(b: Any, m: Any) -> np.ndarray:
    out = np.zeros(b.n_queries)
    positions = np.flatnonzero(b.relevant)
    queries, first = np.unique(b.query[positions], return_index=True)
    out[queries] = 1.0 / (b.rank0[positions[first]] + 1.0)
    return out


def _rprec(b: Any, m: Any) -> np.ndarray:
    return b._over_num_rel(b._relevant_in_top(b.num_rel))  # type: ignore[no-any-return]


def _ndcg(b: Any, m: Any) -> np.ndarray:
    if m.params:  # trec_eval's gain levels given: the gain measures' walk
        return experimental_values(b, m)
    dcg = b._dcg(b.rank0, b.grades, b.query, m.k)
    ideal_query, ideal_rank0 = b._ideal()
    idcg = b._dcg(ideal_rank0, b.ideal_gains, ideal_query, m.k)
    out = np.zeros(b.n_queries)
    np.divide(dcg, idcg, out=out, where=idcg > 0)
    return out


def _log_ap(b: Any, m: Any) -> np.ndarray:  # `gm_map`: the mean of logs, then exp
    return np.log(np.maximum(_average_precision(b, _MAP), MIN_GEO_MEAN))  # type: ignore[no-any-return]


@dataclass(frozen=True)
class _Plain:  # a metric without a cutoff, for `_log_ap`
    kind: str = "map"
    k: int | None = None


_MAP = _Plain()


def _judged(b: Any, m: Any) -> np.ndarray:
    return judged_values(b, m.kind, m.level)


CUTOFFS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
LEVELS = ("0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0")
MULTIPLES = ("0.2", "0.4", "0.6", "0.8", "1.0", "1.2", "1.4", "1.6", "1.8", "2.0")
_OFFICIAL = frozenset({"official", "all_trec"})
_SET = frozenset({"set", "all_trec"})
_EVERY = frozenset({"official", "set", "all_trec"})
_COUNT = {"mean": "sum", "per_item": False}

for _entry in (
    Measure("runid", None, sets=_OFFICIAL | _SET, per_item=False),
    Measure("num_q", None, sets=_OFFICIAL | _SET, per_item=False),
    Measure("num_ret", _judged, sets=_EVERY, zero_without_ranking=True, **_COUNT),  # type: ignore[arg-type]
    Measure("num_rel", _judged, sets=_EVERY, **_COUNT),  # type: ignore[arg-type]
    Measure("num_rel_ret", _judged, sets=_EVERY, **_COUNT),  # type: ignore[arg-type]
    Measure("map", _average_precision, sets=_OFFICIAL),
    Measure("gm_map", _log_ap, mean="geometric", per_item=False, sets=_OFFICIAL),
    Measure("Rprec", _rprec, sets=_OFFICIAL),
    Measure("bpref", _judged, judged_only=True, sets=_OFFICIAL),
    Measure("recip_rank", _recip_rank, sets=_OFFICIAL),
    Measure("iprec_at_recall", _judged, cutoffs=LEVELS, fraction=True, max_cutoff=1.0,
            sets=_OFFICIAL),
    Measure("P", _precision, cutoffs=CUTOFFS, sets=_OFFICIAL),
    Measure("relstring", None, params=True, per_item=False),
    Measure("recall", _recall, cutoffs=CUTOFFS),
    Measure("infAP", _judged, judged_only=True),
    Measure("gm_bpref", experimental_values, mean="geometric", per_item=False),
    Measure("Rprec_mult", experimental_values, cutoffs=MULTIPLES, fraction=True),
    Measure("utility", experimental_values, params=True, per_item=False, sets=_SET,
            zero_without_ranking=True),
    Measure("11pt_avg", experimental_values, params=True),
    Measure("binG", experimental_values),
    Measure("G", experimental_values, params=True),
    Measure("dcg", experimental_values, params=True, per_item=False, sets=frozenset()),
    Measure("ideal_dcg", experimental_values, params=True, per_item=False, sets=frozenset()),
    Measure("ndcg", _ndcg, params=True),
    Measure("ndcg_rel", experimental_values, params=True),
    Measure("Rndcg", experimental_values, params=True),
    Measure("ndcg_cut", _ndcg, cutoffs=CUTOFFS),
    Measure("map_cut", _average_precision, cutoffs=CUTOFFS),
    Measure("relative_P", experimental_values, cutoffs=CUTOFFS),
    Measure("success", _success, cutoffs=("1", "5", "10")),
    Measure("set_P", _judged, sets=_SET),
    Measure("set_relative_P", _judged, sets=_SET),
    Measure("set_recall", _judged, sets=_SET),
    Measure("set_map", _judged, sets=_SET),
    Measure("set_F", _judged, sets=_SET),
    Measure("num_nonrel_judged_ret", _judged, judged_only=True, **_COUNT),  # type: ignore[arg-type]
    Measure("rbp", experimental_values, params=True, exact_ties=True),
    Measure("rbp_resid", experimental_values, params=True, exact_ties=True,
            zero_without_ranking=True),
    Measure("unj", experimental_values, cutoffs=("5", "10", "20"), exact_ties=True,
            zero_without_ranking=True),
):  # fmt: skip
    register_measure(_entry)


def names_of(set_name: str) -> tuple[str, ...]:
    """The measures of a named set (``official``, ``all_trec``, ``set``), in print order."""
    return tuple(name for name, m in MEASURES.items() if set_name in m.sets)


def _cutoffs(measure: Measure, params: str | None) -> list[str]:
    name = measure.name
    given = [p for p in params.split(",") if p] if params else list(measure.cutoffs)
    try:  # whole cutoffs as trec_eval reads them: 23.4 is 23
        values = [float(v) if measure.fraction else int(float(v)) for v in given]
    except ValueError:
        raise ConfigError(f"-m {name}.{params}: cutoffs must be numbers") from None
    if any(v <= 0 for v in values) and not measure.fraction:
        raise ConfigError(f"-m {name}.{params}: cutoffs must be positive")
    if len(set(values)) != len(values):
        raise ConfigError(f"-m {name}.{params}: a cutoff is given twice")
    if measure.fraction:
        return [f"{name}_{v:3.2f}" for v in sorted(values)]
    return [f"{name}_{v}" for v in sorted(values)]


def _expand(name: str, params: str | None) -> list[str]:
    measure = MEASURES[name]
    if measure.cutoffs:
        return _cutoffs(measure, params)
    if params and measure.params:
        return [f"{name}_{params}"]
    return [name]


def trec_names(specs: list[str]) -> list[str]:
    """The measure names trec_eval's ``-m`` arguments stand for, in its print order (then
    any scorekit names, ``ndcg@10``, in the order given). A spec is a set (``official``,
    ``all_trec``, ``set``), a measure with parameters (``P.5,10``, ``ndcg.1=3,2=9``), a
    measure, or a comma list of names. As trec_eval 10: a family's cutoffs print sorted,
    and the first parameters given for a measure win over later ones and over a set's
    defaults (``-m all_trec -m P.5`` prints ``P_5`` only)."""
    MEASURES.load()
    sets = {"official", "all_trec", "set"}
    marked: dict[str, str | None] = {}
    others: list[str] = []
    for spec in specs:
        if spec in sets:
            for name in names_of(spec):
                marked.setdefault(name, None)
            continue
        name, dot, params = spec.partition(".")
        if name in MEASURES:
            if dot and params and marked.get(name) is None:
                marked[name] = params  # the first parameters given win
            marked.setdefault(name, None)
            continue
        for part in filter(None, spec.split(",")):
            if part in MEASURES or part in sets:
                for found in names_of(part) if part in sets else (part,):
                    marked.setdefault(found, None)
            else:
                others.append(part)
    names = [n for m in MEASURES if m in marked for n in _expand(m, marked[m])]
    return names + [n for n in dict.fromkeys(others) if n not in names]
