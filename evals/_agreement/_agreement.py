"""How often the judge agrees with people, on the verdicts this run's judge gave, and the
gate on it (``--min-agreement``).

People's labels come from a `LabelStore`, each keyed to the question judged (the claim
and its chunks, or the chunk and its reference, for a judge model and prompt version).
The verdicts they are compared with are **this run's own** (``details["verdicts"]`` of
its items), never the ones stored when the label was made: another judge serving the
same model name answers the same questions differently, and its agreement is its own.
Only questions that are both labelled and judged in this run count. κ and accuracy are
`evals._calibrate.agreement`'s: Cohen's κ of the person's label against the run's
verdict, each with a 95% percentile bootstrap interval (labels resampled, 2,000
resamples, seed 0).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from scorers import ConfigError
from scorers._internal import finite, warn_user

from .._calibration import agreement
from .._graded import graded_agreement
from .._judged import SPLIT, by_question, people_label
from .._labels import LabelStore, label_store
from ._verdicts import header_of_run, judged_scorers, run_items, run_verdicts

if TYPE_CHECKING:
    from .._file._header import RunHeader

MIN_LABELS = 10
"""Fewer labelled questions in common with the run than this and the agreement gate does
not decide (exit 4)."""

RunVerdicts = Mapping[str, Mapping[str, bool | int]]
"""A run's verdicts people can label: per scorer, the question's label key → the run's
verdict (supported / useful, or a graded verdict's grade 0-3)."""


def no_interval() -> list[float | None]:
    return [None, None]


class JudgeAgreement(BaseModel):
    """People's agreement with one scorer's judge in one run: their labels against the
    verdicts the run's judge gave on the same questions.

    Attributes:
        scorer_id: The scorer.
        judge_model: The judge that produced the run's verdicts.
        prompt_version: The version of the verdict prompt.
        n: Labelled questions the run judged, with a decision (agree or disagree).
        undecided: Labelled questions the run judged where nobody could decide (not
            counted).
        split: Labelled questions the run judged where the people who decided gave no
            majority (not counted). A question several people labelled counts once, with
            the label most of them gave (`people_label`).
        labelled: Decided labels for this judge model and prompt version in the store,
            whether or not the run judged their questions.
        verdicts_read: False when the run's verdicts could not be read (a header without
            its items): nothing is counted and the gate does not decide.
        kappa: Cohen's κ of people's labels against the run's verdicts (None with no
            label, or when both sides gave one class only); for graded verdicts
            (relevance levels) Cohen's κ with quadratic weights.
        graded: Whether the verdicts are graded (κ is then quadratic-weighted and
            accuracy is exact agreement on the level).
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
    split: int = 0
    labelled: int = 0
    verdicts_read: bool = True
    graded: bool = False
    kappa: float | None = None
    kappa_ci: list[float | None] = Field(default_factory=no_interval)
    accuracy: float | None = None
    accuracy_ci: list[float | None] = Field(default_factory=no_interval)
    elsewhere: dict[str, int] = Field(default_factory=dict)

    def line(self) -> str:
        """One line: κ and accuracy with their intervals and n, or why there are none."""
        who = f"{self.scorer_id} (judge {self.judge_model}, prompt v{self.prompt_version})"
        if not self.verdicts_read:
            return f"{who}: the run's own verdicts could not be read (give its results file)"
        if not self.n:
            if self.labelled:
                return (
                    f"{who}: none of the {self.labelled} labels for this judge is on a "
                    "question this run judged"
                )
            if self.elsewhere:
                made = "; ".join(f"{k}: {n}" for k, n in self.elsewhere.items())
                return f"{who}: no labels for this judge yet — labels exist for {made}"
            return f"{who}: no labels for this judge yet"
        kappa = "weighted κ (quadratic)" if self.graded else "κ"
        return (
            f"{who}: {kappa} {value_text(self.kappa, self.kappa_ci)}, accuracy "
            f"{value_text(self.accuracy, self.accuracy_ci)}, {self.n} labels"
            + (f", {self.split} split between people" if self.split else "")
        )


def value_text(value: float | None, ci: Sequence[float | None]) -> str:
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
    """How often people agree with each judged scorer of a run: their labels against the
    verdicts this run's judge gave on the questions they labelled.

    Args:
        run: A run (`EvalResult`, `read_results`' list) or a results file. A bare
            `RunHeader` has no verdicts: its agreements count nothing and do not decide.
        labels: A `LabelStore`, its file or its folder; default the ``scorekit-labels.sqlite``
            beside the results file (``run``'s path, or its ``results_path``), else in the
            working directory.

    Returns:
        One `JudgeAgreement` per scorer whose judge gives verdicts (context recall,
        precision, utilization); none for a run without a judge.
    """
    header, near = header_of_run(run)
    store = label_store(labels, near)
    items = run_items(run)
    return agreements_for(header, store, None if items is None else run_verdicts(items, header))


def shown_agreements(
    run: Any, labels: LabelStore | str | os.PathLike[str] | None, *, needed: bool
) -> list[JudgeAgreement]:
    """`judge_agreements` where agreement is shown beside other results: a labels
    database that cannot be read stops only what needs it (``needed``: a
    ``--min-agreement`` gate); otherwise it is a warning on stderr and no agreement."""
    try:
        return judge_agreements(run, labels)
    except ConfigError as exc:
        if needed:
            raise
        warn_user(f"judge agreement not shown: {exc}", UserWarning)
        return []


def agreements_for(
    header: RunHeader | None, store: LabelStore, verdicts: RunVerdicts | None
) -> list[JudgeAgreement]:
    """`judge_agreements` of a header, a store and the run's verdicts (`run_verdicts`;
    None when they could not be read)."""
    return [
        agreement_of(store, sid, model, prompt, None if verdicts is None else verdicts.get(sid, {}))
        for sid, (model, prompt) in judged_scorers(header).items()
    ]


def agreement_of(
    store: LabelStore,
    scorer_id: str,
    model: str,
    prompt: str,
    verdicts: Mapping[str, bool | int] | None,
) -> JudgeAgreement:
    """People's agreement with one scorer's judge ``model`` under verdict prompt version
    ``prompt``: the labels in ``store`` on questions the run judged, against ``verdicts``
    (the run's: label key → supported; None when they could not be read)."""
    labels = store.labels(scorer_id, model, prompt)
    elsewhere = {
        f"{m}, prompt v{p}": n
        for (m, p), n in store.judges(scorer_id).items()
        if (m, p) != (model, prompt)
    }
    result = JudgeAgreement(
        scorer_id=scorer_id,
        judge_model=model,
        prompt_version=prompt,
        labelled=sum(x.label is not None for x in labels),
        verdicts_read=verdicts is not None,
        elsewhere=elsewhere,
    )
    if verdicts is None:
        return result
    people = {
        key: people_label(found)
        for key, found in by_question(x for x in labels if x.key in verdicts).items()
    }
    decided = {key: label for key, label in people.items() if label not in (None, SPLIT)}
    result.n = len(decided)
    result.split = sum(label == SPLIT for label in people.values())
    result.undecided = len(people) - result.n - result.split
    result.graded = any(x.verdict.graded for x in labels) or any(
        not isinstance(v, bool) for v in verdicts.values()
    )
    if decided and result.graded:
        graded, intervals = graded_agreement(
            [int(label or 0) for label in decided.values()], [int(verdicts[k]) for k in decided]
        )
        result.kappa, result.kappa_ci = graded["weighted_kappa"], intervals["weighted_kappa"]
        result.accuracy, result.accuracy_ci = graded["accuracy"], intervals["accuracy"]
    elif decided:
        metrics, ci, _ = agreement(
            [bool(label) for label in decided.values()], [bool(verdicts[k]) for k in decided]
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

    A gate passes when κ — people's labels against this run's own verdicts on the
    questions both cover — is at least ``min_kappa``. It fails when κ is below, or when
    the scorer's labels were all made for another judge or prompt (the judge changed
    since). It does not decide — and so fails, as undecided (exit 4) — when the run's
    verdicts cannot be read, with fewer than `MIN_LABELS` labelled questions in common
    with the run, or an undefined κ; and a run with no judged scorer gets one such gate
    (scorer ``""``): a bound on agreement never passes on nothing.

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
            "recall, precision, utilization, relevance)"
        )
        return [AgreementGate(scorer="", min_kappa=min_kappa, kappa=None, n=0, passed=False,
                              decided=False, why=why)]  # fmt: skip
    gates = []
    for a in agreements:
        why, decided = "", True
        if not a.verdicts_read:
            why, decided = "the run's own verdicts could not be read", False
        elif not a.n and a.labelled:
            why, decided = (
                f"none of the {a.labelled} labels for this judge is on a question this run judged",
                False,
            )
        elif not a.n and a.elsewhere:
            made = "; ".join(f"{k} ({n})" for k, n in a.elsewhere.items())
            why = (
                f"the judge or prompt changed since the labels were made: they are for {made}; "
                f"this run's is {a.judge_model}, prompt v{a.prompt_version}"
            )
        elif not a.n:
            why, decided = "no labels for this judge yet", False
        elif a.n < MIN_LABELS:
            why, decided = (
                f"{a.n} labelled questions in common with this run, fewer than {MIN_LABELS}",
                False,
            )
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
