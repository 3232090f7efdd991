"""trec_eval's measures as one table, in the order it prints them. Each measure is
declared where it is computed (`_core`, `_judged`, `_experimental`: its compute on the
public batch API and its `Measure` fields, in one place); this module registers them in
trec_eval's print order and resolves ``-m`` arguments. `evaluate_ranking`,
`parse_metric`, `create_ranking_scorer`'s refusals and ``scorekit trec -m`` all read
the table; `register_measure` adds one.
"""

from __future__ import annotations

from .._errors import ConfigError
from . import _core  # noqa: F401  (its measures)
from ._experimental import CUTOFFS
from ._ranked import MEASURES, OWN, Measure, measure_of, register_measure

__all__ = [
    "CUTOFFS",
    "MEASURES",
    "Measure",
    "measure_of",
    "names_of",
    "register_measure",
    "trec_names",
]

TREC_ORDER = (
    *("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"),
    *("bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP"),
    *("gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg"),
    *("ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success"),
    *("set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"),
    *("rbp", "rbp_resid", "unj"),
)
"""trec_eval 10's print order (a fact of trec_eval; a measure it does not print goes after)."""

for _entry in sorted(
    OWN, key=lambda m: TREC_ORDER.index(m.name) if m.name in TREC_ORDER else len(TREC_ORDER)
):
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
