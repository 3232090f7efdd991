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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from scorers import ConfigError
from scorers.lowlevel import finite

from .._calibrate import agreement
from .._labels import LabelStore, label_store
from ._verdicts import header_of_run, judged_scorers

if TYPE_CHECKING:
    from ._header import RunHeader

MIN_LABELS = 10
"""Fewer decided labels than this and the agreement gate does not decide (exit 4)."""


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
    header, near = header_of_run(run)
    return agreements_for(header, label_store(labels, near))


def agreements_for(header: RunHeader | None, store: LabelStore) -> list[JudgeAgreement]:
    """`judge_agreements` of a header and a store."""
    return [
        agreement_of(store, sid, model, prompt)
        for sid, (model, prompt) in judged_scorers(header).items()
    ]


def agreement_of(store: LabelStore, scorer_id: str, model: str, prompt: str) -> JudgeAgreement:
    """People's agreement with one scorer's judge ``model`` under verdict prompt version
    ``prompt``, from the labels in ``store``."""
    labels = store.labels(scorer_id, model, prompt)
    decided = [x for x in labels if x.label is not None]
    elsewhere = {
        f"{m}, prompt v{p}": n
        for (m, p), n in store.judges(scorer_id).items()
        if (m, p) != (model, prompt)
    }
    result = JudgeAgreement(
        scorer_id=scorer_id,
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
    return result


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
    than `MIN_LABELS`, or an undefined κ; and a run with no judged scorer gets one such
    gate (scorer ``""``): a bound on agreement never passes on nothing.

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
        agreements = judge_agreements(run, labels)
    if not agreements:
        why = (
            "no scorer of this run asks a judge for verdicts people can label (context "
            "recall, precision, utilization)"
        )
        return [AgreementGate(scorer="", min_kappa=min_kappa, kappa=None, n=0, passed=False,
                              decided=False, why=why)]  # fmt: skip
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
