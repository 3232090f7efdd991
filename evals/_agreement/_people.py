"""How often people agree with each other: for every two annotators, Cohen's κ and exact
agreement on the questions both decided, each with its 95% interval.

The statistics are the judge's (`evals._calibration.agreement` for yes/no verdicts,
`evals._graded.graded_agreement` — κ with quadratic weights — for graded ones): the
first person's labels stand where the people's labels stand there and the second's
where the judge's verdicts do. Intervals are percentile bootstrap intervals (questions
resampled, 2,000 resamples, seed 0). People's agreement bounds what a judge can be
asked for: a judge is not expected to agree with people more than they agree with each
other.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from itertools import combinations

from pydantic import BaseModel, Field

from .._calibration import agreement
from .._graded import graded_agreement
from .._judged import Label
from .._labels import LabelStore, label_store
from ._agreement import no_interval, value_text


class PeopleAgreement(BaseModel):
    """Two annotators' agreement on one scorer's verdicts.

    Attributes:
        scorer_id: The scorer whose verdicts they labelled.
        first: One annotator ("" for labels made before names were asked).
        second: The other.
        n: Questions both decided (labels of "cannot decide" are not counted).
        graded: Whether the labels are grades (κ is then quadratic-weighted and accuracy
            is agreement on the exact grade).
        kappa: Cohen's κ between them (None when undefined: one class only).
        kappa_ci: Its 95% bootstrap interval.
        accuracy: The share of questions they labelled alike.
        accuracy_ci: Its 95% bootstrap interval.
    """

    scorer_id: str
    first: str
    second: str
    n: int
    graded: bool = False
    kappa: float | None = None
    kappa_ci: list[float | None] = Field(default_factory=no_interval)
    accuracy: float | None = None
    accuracy_ci: list[float | None] = Field(default_factory=no_interval)

    def line(self) -> str:
        """One line: who, κ and accuracy with their intervals, and n."""
        kappa = "weighted κ (quadratic)" if self.graded else "κ"
        return (
            f"{self.scorer_id}: {_name(self.first)} and {_name(self.second)}: {kappa} "
            f"{value_text(self.kappa, self.kappa_ci)}, accuracy "
            f"{value_text(self.accuracy, self.accuracy_ci)}, {self.n} question"
            f"{'' if self.n == 1 else 's'} both decided"
        )


def _name(annotator: str) -> str:
    return annotator or "(unnamed)"


def people_agreements(
    labels: LabelStore | str | os.PathLike[str] | None = None,
    scorer_ids: Collection[str] | None = None,
) -> list[PeopleAgreement]:
    """Every two annotators' agreement on each scorer's verdicts.

    Args:
        labels: A `LabelStore`, its file or its folder (default: the working directory's).
        scorer_ids: Only these scorers' verdicts.

    Returns:
        One `PeopleAgreement` per scorer and pair of annotators with a question both
        decided; by scorer, then by the two names.
    """
    decided: dict[str, dict[str, dict[str, Label]]] = {}
    for found in label_store(labels, None).labels():
        sid = found.verdict.scorer_id
        if found.label is None or (scorer_ids is not None and sid not in scorer_ids):
            continue
        decided.setdefault(sid, {}).setdefault(found.annotator, {})[found.key] = found
    agreements = []
    for sid, people in sorted(decided.items()):
        for first, second in combinations(sorted(people), 2):
            shared = sorted(people[first].keys() & people[second].keys())
            if shared:
                agreements.append(_pair(sid, first, second, people, shared))
    return agreements


def _pair(
    sid: str, first: str, second: str, people: dict[str, dict[str, Label]], shared: list[str]
) -> PeopleAgreement:
    ours = [people[first][k].label for k in shared]
    theirs = [people[second][k].label for k in shared]
    graded = people[first][shared[0]].verdict.graded
    found = PeopleAgreement(scorer_id=sid, first=first, second=second, n=len(shared), graded=graded)
    if graded:
        metrics, intervals = graded_agreement(
            [int(x or 0) for x in ours], [int(x or 0) for x in theirs]
        )
        found.kappa, found.kappa_ci = metrics["weighted_kappa"], intervals["weighted_kappa"]
    else:
        metrics, intervals, _ = agreement([bool(x) for x in ours], [bool(x) for x in theirs])
        found.kappa, found.kappa_ci = metrics["kappa"], intervals["kappa"]
    found.accuracy, found.accuracy_ci = metrics["accuracy"], intervals["accuracy"]
    return found
