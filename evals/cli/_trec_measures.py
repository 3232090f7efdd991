"""trec_eval's ``-m`` arguments: measure sets, families with cutoffs, their order."""

from __future__ import annotations

from scorers import ConfigError

CUTOFFS = ("5", "10", "15", "20", "30", "100", "200", "500", "1000")
LEVELS = ("0.00", "0.10", "0.20", "0.30", "0.40", "0.50", "0.60", "0.70", "0.80", "0.90", "1.00")
FAMILIES: dict[str, tuple[str, ...]] = {
    "P": CUTOFFS,
    "recall": CUTOFFS,
    "ndcg_cut": CUTOFFS,
    "map_cut": CUTOFFS,
    "relative_P": CUTOFFS,
    "success": ("1", "5", "10"),
    "iprec_at_recall": LEVELS,
    "Rprec_mult": ("0.20", "0.40", "0.60", "0.80", "1.00", "1.20", "1.40", "1.60", "1.80", "2.00"),
    "unj": ("5", "10", "20"),
}
"""Measures with parameters, and trec_eval's default parameters."""


def _family(name: str, params: tuple[str, ...] | None = None) -> list[str]:
    values = FAMILIES[name] if params is None else params
    if name in ("iprec_at_recall", "Rprec_mult"):
        return [f"{name}_{float(v):.2f}" for v in values]
    return [f"{name}_{v}" for v in values]


OFFICIAL = [
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    *_family("iprec_at_recall"),
    *_family("P"),
]
"""trec_eval's default (``official``) measures, in its order."""

ALL_TREC = [
    *OFFICIAL,
    "relstring",
    *_family("recall"),
    "infAP",
    "gm_bpref",
    *_family("Rprec_mult"),
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    *_family("ndcg_cut"),
    *_family("map_cut"),
    *_family("relative_P"),
    *_family("success"),
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "rbp",
    "rbp_resid",
    *_family("unj"),
]
"""``all_trec``: every measure of trec_eval 10, in its order."""

NOT_COMPUTED = frozenset(
    {
        "relstring",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "binG",
        "G",
        "ndcg_rel",
        "Rndcg",
        "rbp",
        "rbp_resid",
    }
    | set(_family("Rprec_mult"))
    | set(_family("relative_P"))
    | set(_family("unj"))
)
"""trec_eval measures scorekit does not compute (``all_trec`` names them on stderr)."""


def measures(specs: list[str]) -> tuple[list[str], list[str]]:
    """The measure names ``-m`` arguments stand for, in order, and the trec_eval measures
    among them that are not computed. A spec is ``official``, ``all_trec``, a family
    (``P``: its default cutoffs; ``P.5,10``: those), a comma list (``map,ndcg``) or a
    name (trec_eval's or scorekit's, ``ndcg@10``)."""
    names: list[str] = []
    for spec in specs:
        if spec == "official":
            names += OFFICIAL
        elif spec == "all_trec":
            names += ALL_TREC
        elif "." in spec and spec.split(".", 1)[0] in FAMILIES:
            family, params = spec.split(".", 1)
            values = tuple(p for p in params.split(",") if p)
            if not values:
                raise ConfigError(f"-m {spec}: give parameters after the dot, e.g. P.5,10")
            names += _family(family, values)
        elif spec in FAMILIES:
            names += _family(spec)
        else:
            names += [part for part in spec.split(",") if part]
    kept = list(dict.fromkeys(names))
    return [n for n in kept if n not in NOT_COMPUTED], [n for n in kept if n in NOT_COMPUTED]
