"""trec_eval's ``-m`` arguments: measure sets, families with parameters, their order.

As trec_eval 10 does: measures print in its fixed order whatever the ``-m`` order;
a family's cutoffs print sorted; the first parameters given for a measure win over
later ones and over a set's defaults (``-m all_trec -m P.5`` prints ``P_5`` only).
"""

from __future__ import annotations

from scorers import ConfigError

CUTOFFS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
LEVELS = ("0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0")
WHOLE_CUTS: dict[str, tuple[str, ...]] = {
    "P": CUTOFFS,
    "recall": CUTOFFS,
    "ndcg_cut": CUTOFFS,
    "map_cut": CUTOFFS,
    "relative_P": CUTOFFS,
    "success": ("1", "5", "10"),
    "unj": ("5", "10", "20"),
}
FRACTION_CUTS: dict[str, tuple[str, ...]] = {
    "iprec_at_recall": LEVELS,
    "Rprec_mult": ("0.2", "0.4", "0.6", "0.8", "1.0", "1.2", "1.4", "1.6", "1.8", "2.0"),
}
FAMILIES = {**WHOLE_CUTS, **FRACTION_CUTS}
"""Measures with cutoffs, and trec_eval's default cutoffs."""
WITH_PARAMS = frozenset(
    {"relstring", "utility", "11pt_avg", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel"}
    | {"Rndcg", "rbp", "rbp_resid"}
)
"""Measures whose parameters trec_eval prints after the name (``ndcg_1=3,2=9``)."""

ORDER = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
    "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg",
    "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "rbp",
    "rbp_resid", "unj",
)  # fmt: skip
"""trec_eval 10's measures in the order it prints them."""

OFFICIAL = ORDER[:12]
SET = (*ORDER[:5], "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F")
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": OFFICIAL,
    "all_trec": tuple(m for m in ORDER if m not in ("dcg", "ideal_dcg")),
    "set": SET,
}
"""trec_eval's measure sets (``-m official``, ``-m all_trec``, ``-m set``)."""


def _cutoffs(measure: str, params: str | None) -> list[str]:
    given = [p for p in params.split(",") if p] if params else list(FAMILIES[measure])
    try:  # whole cutoffs as trec_eval reads them: 23.4 is 23
        values = [float(v) if measure in FRACTION_CUTS else int(float(v)) for v in given]
    except ValueError:
        raise ConfigError(f"-m {measure}.{params}: cutoffs must be numbers") from None
    if any(v <= 0 for v in values) and measure in WHOLE_CUTS:
        raise ConfigError(f"-m {measure}.{params}: cutoffs must be positive")
    if len(set(values)) != len(values):
        raise ConfigError(f"-m {measure}.{params}: a cutoff is given twice")
    if measure in FRACTION_CUTS:
        return [f"{measure}_{v:3.2f}" for v in sorted(values)]
    return [f"{measure}_{v}" for v in sorted(values)]


def _expand(measure: str, params: str | None) -> list[str]:
    if measure in FAMILIES:
        return _cutoffs(measure, params)
    if params and measure in WITH_PARAMS:
        return [f"{measure}_{params}"]
    return [measure]


def measures(specs: list[str]) -> list[str]:
    """The measure names ``-m`` arguments stand for, in trec_eval's order (then any
    scorekit names, ``ndcg@10``, in the order given). A spec is a set (``official``,
    ``all_trec``, ``set``), a measure with parameters (``P.5,10``, ``ndcg.1=3,2=9``),
    a measure, or a comma list of names."""
    marked: dict[str, str | None] = {}
    others: list[str] = []
    for spec in specs:
        if spec in NICKNAMES:
            for measure in NICKNAMES[spec]:
                marked.setdefault(measure, None)
            continue
        measure, dot, params = spec.partition(".")
        if measure in ORDER:
            if dot and params and marked.get(measure) is None:
                marked[measure] = params  # the first parameters given win
            marked.setdefault(measure, None)
            continue
        for part in filter(None, spec.split(",")):
            if part in ORDER or part in NICKNAMES:
                for measure in NICKNAMES.get(part, (part,)):
                    marked.setdefault(measure, None)
            else:
                others.append(part)
    names = [name for m in ORDER if m in marked for name in _expand(m, marked[m])]
    return names + [n for n in dict.fromkeys(others) if n not in names]
