"""How often the judge agrees with people, for the judge and prompt that produced a run's
scores, and the gate on it (``--min-agreement``).

The judge's verdicts come from the results file (``details["verdicts"]`` of context
recall, precision and utilization); people's labels from a `LabelStore`. κ and accuracy
are `evals._calibrate.agreement`'s: Cohen's κ of the person's label against the judge's
verdict, each with a 95% percentile bootstrap interval (labels resampled, 2,000
resamples, seed 0).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from scorers import ConfigError
from scorers._runtime import finite, integer

from .._calibrate import agreement
from .._labels import JudgeVerdict, LabelStore, label_store

if TYPE_CHECKING:
    from ._header import RunHeader
    from ._items import ItemResult

MIN_LABELS = 10
"""Fewer decided labels than this and the agreement gate does not decide (exit 4)."""

VERDICT_STEP = "verdicts"
"""The prompt step whose verdicts people label; its version keys the labels."""


def _no_interval() -> list[float | None]:
    return [None, None]


class JudgeAgreement(BaseModel):
    """People's agreement with one scorer's judge, for one judge model and prompt version.

    Attributes:
        scorer_id: The scorer.
        judge_model: The judge that produced the run's verdicts.
        prompt_version: The version of the verdict prompt.
        n: Labels with a decision (agree or disagree).
        undecided: Labels where the person could not decide (not counted).
        kappa: Cohen's κ of people's labels against the judge's verdicts (None with no
            label, or when both sides gave one class only).
        kappa_ci: Its 95% bootstrap interval.
        accuracy: The share of labels that agree with the judge.
        accuracy_ci: Its 95% bootstrap interval.
        elsewhere: Decided labels of this scorer made for another judge or prompt
            version, as ``"model, prompt v"`` → count.
    """

    scorer_id: str
    judge_model: str
    prompt_version: str
    n: int = 0
    undecided: int = 0
    kappa: float | None = None
    kappa_ci: list[float | None] = Field(default_factory=_no_interval)
    accuracy: float | None = None
    accuracy_ci: list[float | None] = Field(default_factory=_no_interval)
    elsewhere: dict[str, int] = Field(default_factory=dict)

    def line(self) -> str:
        """One line: κ and accuracy with their intervals and n, or why there are none."""
        who = f"{self.scorer_id} (judge {self.judge_model}, prompt v{self.prompt_version})"
        if not self.n:
            if self.elsewhere:
                made = "; ".join(f"{k}: {n}" for k, n in self.elsewhere.items())
                return f"{who}: no labels for this judge yet — labels exist for {made}"
            return f"{who}: no labels for this judge yet"
        return (
            f"{who}: κ {_value(self.kappa, self.kappa_ci)}, accuracy "
            f"{_value(self.accuracy, self.accuracy_ci)}, {self.n} labels"
        )


def _value(value: float | None, ci: Sequence[float | None]) -> str:
    if value is None:
        return "undefined"
    if ci[0] is None or ci[1] is None:
        return f"{value:.2f}"
    return f"{value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


class AgreementGate(BaseModel):
    """``--min-agreement``: one judged scorer's κ against the bound.

    Attributes:
        scorer: The scorer id.
        min_kappa: The bound.
        kappa: The κ found (None when there was none).
        n: Labels it rests on.
        passed: κ reached the bound, for this run's judge and prompt.
        decided: False with no labels at all, fewer than `MIN_LABELS`, or an undefined κ:
            the gate fails as undecided (exit 4).
        why: Why it did not pass ("" when it passed).
    """

    scorer: str
    min_kappa: float
    kappa: float | None
    n: int
    passed: bool
    decided: bool = True
    why: str = ""


def judged_scorers(header: RunHeader | None) -> dict[str, tuple[str, str]]:
    """Per scorer of a run whose judge gives verdicts people can label: (judge model,
    verdict prompt version)."""
    if header is None:
        return {}
    return {
        sid: (model, d.prompt_versions[VERDICT_STEP])
        for sid, d in header.scorers.items()
        if (model := d.judge_model) and VERDICT_STEP in d.prompt_versions
    }


def judge_agreements(
    run: Any,
    labels: LabelStore | str | os.PathLike[str] | None = None,
) -> list[JudgeAgreement]:
    """How often people agree with each judged scorer of a run, counting only labels made
    for the judge model and verdict prompt version that produced the run's scores.

    Args:
        run: A run (`EvalResult`, `read_results`' list), its `RunHeader`, or a results
            file (only its header is read).
        labels: A `LabelStore`, its file or its folder; default the ``scorekit-labels.sqlite``
            beside the results file (``run``'s path, or its ``results_path``), else in the
            working directory.

    Returns:
        One `JudgeAgreement` per scorer whose judge gives verdicts (context recall,
        precision, utilization); none for a run without a judge.
    """
    header, near = _header_of(run)
    return agreements_for(header, label_store(labels, near))


def _header_of(run: Any) -> tuple[RunHeader | None, Path | None]:
    from ._header import RunHeader

    if run is None or isinstance(run, RunHeader):
        return run, None
    if isinstance(run, (str, os.PathLike)):
        path = Path(run)
        if not path.is_file():
            raise ConfigError(f"results file {path} does not exist")
        return last_header(path), path
    near = getattr(run, "results_path", None)
    return getattr(run, "header", None), None if near is None else Path(near)


def last_header(path: Path) -> RunHeader | None:
    """The last header line of a results file (read as a stream; None without one)."""
    from ._header import HEADER_PREFIX, parse_header

    found = None
    with path.open("rb") as handle:
        for raw in handle:
            if raw.startswith(HEADER_PREFIX):
                found = parse_header(raw) or found
    return found


def agreements_for(header: RunHeader | None, store: LabelStore) -> list[JudgeAgreement]:
    """`judge_agreements` of a header and a store."""
    found = []
    for sid, (model, prompt) in judged_scorers(header).items():
        labels = store.labels(sid, model, prompt)
        decided = [x for x in labels if x.label is not None]
        elsewhere = {
            f"{m}, prompt v{p}": n
            for (m, p), n in store.judges(sid).items()
            if (m, p) != (model, prompt)
        }
        result = JudgeAgreement(
            scorer_id=sid,
            judge_model=model,
            prompt_version=prompt,
            n=len(decided),
            undecided=len(labels) - len(decided),
            elsewhere=elsewhere,
        )
        if decided:
            metrics, ci, _ = agreement(
                [bool(x.label) for x in decided], [x.verdict.supported for x in decided]
            )
            result.kappa, result.kappa_ci = metrics["kappa"], ci["kappa"]
            result.accuracy, result.accuracy_ci = metrics["accuracy"], ci["accuracy"]
        found.append(result)
    return found


def agreement_gates(
    run: Any,
    min_kappa: float,
    labels: LabelStore | str | os.PathLike[str] | None = None,
) -> list[AgreementGate]:
    """``--min-agreement KAPPA``: each judged scorer's κ with people checked against
    ``min_kappa``.

    A gate passes when κ (of labels made for this run's judge model and verdict prompt
    version) is at least ``min_kappa``. It fails when κ is below, or when the scorer's
    labels were all made for another judge or prompt (the judge changed since). It does
    not decide — and so fails, as undecided (exit 4) — with no labels at all, fewer
    than `MIN_LABELS`, or an undefined κ.

    Args:
        run: What `judge_agreements` takes, or its result.
        min_kappa: The smallest κ accepted (-1 to 1).
        labels: As for `judge_agreements`.
    """
    min_kappa = finite("min_kappa", min_kappa)
    if not -1 <= min_kappa <= 1:
        raise ConfigError(f"min_kappa must be between -1 and 1 (Cohen's κ); got {min_kappa:g}")
    if isinstance(run, list) and all(isinstance(a, JudgeAgreement) for a in run):
        agreements = run
    else:
        agreements = judge_agreements(run, labels)  # type: ignore[arg-type]
    gates = []
    for a in agreements:
        why, decided = "", True
        if not a.n and a.elsewhere:
            made = "; ".join(f"{k} ({n})" for k, n in a.elsewhere.items())
            why = (
                f"the judge or prompt changed since the labels were made: they are for {made}; "
                f"this run's is {a.judge_model}, prompt v{a.prompt_version}"
            )
        elif not a.n:
            why, decided = "no labels for this judge yet", False
        elif a.n < MIN_LABELS:
            why, decided = f"{a.n} labels, fewer than {MIN_LABELS}", False
        elif a.kappa is None:
            why, decided = "κ undefined: labels and verdicts of one class only", False
        elif a.kappa < min_kappa:
            why = f"κ {a.kappa:.3f} < {min_kappa:g} over {a.n} labels"
        gates.append(
            AgreementGate(
                scorer=a.scorer_id,
                min_kappa=min_kappa,
                kappa=a.kappa,
                n=a.n,
                passed=not why,
                decided=decided,
                why=why,
            )
        )
    return gates


def verdicts_of(item: ItemResult, run: str, header: RunHeader | None) -> list[JudgeVerdict]:
    """Every verdict a person can label in one finished item."""
    judged = judged_scorers(header)
    found: list[JudgeVerdict] = []
    for sid, result in item.scorer_results.items():
        if sid not in judged or result.status != "scored":
            continue
        model, prompt = judged[sid]
        details = result.details
        listed = (details.get("sampling") or details.get(VERDICT_STEP) or {}).get("verdicts")
        if not isinstance(listed, list):
            continue
        common: dict[str, Any] = {
            "scorer_id": sid,
            "judge_model": model,
            "prompt_version": prompt,
            "run": run,
            "item_id": item.item.id,
            "input": _text(item.item.input),
        }
        chunks = [_chunk_text(c) for c in details.get("context") or []]
        claims = (details.get("claims_used") or details.get("claims") or {}).get("claims") or []
        for v in listed:
            if not isinstance(v, dict) or v.get("verdict") not in ("yes", "no"):
                continue
            supported, reason = v["verdict"] == "yes", str(v.get("reason", ""))
            if "claim_index" in v and 0 <= (i := v["claim_index"]) < len(claims):
                found.append(
                    JudgeVerdict(
                        **common,
                        kind="claim",
                        position=i,
                        text=str(claims[i]),
                        context=chunks,
                        supported=supported,
                        reason=reason,
                    )
                )
            elif "context_index" in v and 0 <= (i := v["context_index"]) < len(chunks):
                found.append(
                    JudgeVerdict(
                        **common,
                        kind="chunk",
                        position=i,
                        text=chunks[i],
                        reference=_reference(item, sid),
                        supported=supported,
                        reason=reason,
                    )
                )
    return found


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and isinstance(value[-1], dict):
        return str(value[-1].get("content", ""))  # a message history: its last message
    return str(value)


def _chunk_text(chunk: Any) -> str:
    return str(chunk.get("text", "")) if isinstance(chunk, dict) else str(chunk)


def _reference(item: ItemResult, sid: str) -> str:
    if sid == "context-utilization":
        target = item.target_result
        output = target.output if target is not None else item.item.output
        return _text(output)
    return _text(item.item.ground_truth)


def sample_verdicts(
    run: Any,
    n: int = 30,
    *,
    seed: int = 0,
    labels: LabelStore | str | os.PathLike[str] | None = None,
) -> list[JudgeVerdict]:
    """Verdicts of a run's judge for a person to label (as ``scorekit view`` shows them):
    up to ``n``, stratified by scorer and verdict, drawn with ``seed``, leaving out those
    already labelled in ``labels`` (default: beside the results file).

    Args:
        run: A results file, or a run (`EvalResult`, `read_results`' list).
        n: How many.
        seed: The draw's seed.
        labels: Where the labels are, as for `judge_agreements`.

    Returns:
        `JudgeVerdict`s; give each to `LabelStore.save` with the person's answer.
    """
    n = integer("n", n)
    header, near = _header_of(run)
    store = label_store(labels, near)
    if isinstance(run, (str, os.PathLike)):
        from ._previous import PreviousItems

        items: Iterable[ItemResult] = PreviousItems(Path(run)).in_file_order()
        name = Path(run).name
    else:
        items, name = run.iter_items(), "" if near is None else near.name
    return draw_verdicts(items, name, header, n, seed=seed, skip=store.keys())


def draw_verdicts(
    items: Iterable[ItemResult],
    run: str,
    header: RunHeader | None,
    n: int,
    *,
    seed: int = 0,
    skip: set[str] | frozenset[str] = frozenset(),
) -> list[JudgeVerdict]:
    """Up to ``n`` verdicts for people to label, stratified: an equal share per (scorer,
    supported or not) while each has verdicts left, each drawn at random (``seed``) from
    all of the run's verdicts of its kind (reservoir sampling, one pass); verdicts whose
    key is in ``skip`` (already labelled) are not drawn, and a verdict met twice counts once. Strata take turns in a fixed
    order, so the draw is the same for the same file and seed."""
    rng = random.Random(seed)
    reservoirs: dict[tuple[str, bool], list[JudgeVerdict]] = {}
    seen: dict[tuple[str, bool], int] = {}
    keys = set(skip)
    for item in items:
        for v in verdicts_of(item, run, header):
            if v.key in keys:
                continue
            keys.add(v.key)
            stratum = (v.scorer_id, v.supported)
            count = seen[stratum] = seen.get(stratum, 0) + 1
            kept = reservoirs.setdefault(stratum, [])
            if len(kept) < n:
                kept.append(v)
            elif (j := rng.randrange(count)) < n:
                kept[j] = v
    order = sorted(reservoirs, key=lambda s: (s[0], not s[1]))
    for stratum in order:
        rng.shuffle(reservoirs[stratum])
    chosen: list[JudgeVerdict] = []
    taken = {stratum: 0 for stratum in order}
    while len(chosen) < n and any(taken[s] < len(reservoirs[s]) for s in order):
        for stratum in order:
            if len(chosen) < n and taken[stratum] < len(reservoirs[stratum]):
                chosen.append(reservoirs[stratum][taken[stratum]])
                taken[stratum] += 1
    return chosen
