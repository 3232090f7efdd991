"""A judge's verdict as a person sees it to label it, and the person's label on it."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel


class JudgeVerdict(BaseModel):
    """One verdict of a judge, as a person sees it to label it.

    Attributes:
        scorer_id: The scorer whose verdict it is.
        kind: ``"claim"`` (is the claim supported by the context?), ``"chunk"`` (is the
            chunk useful for the reference?) or ``"relevance"`` (how relevant is the
            chunk to the question: a graded verdict, see ``grade``).
        judge_model: The judge's model.
        prompt_version: The version of the prompt that gave the verdict.
        run: The results file it comes from (relative to the folder of runs).
        item_id: The item it belongs to.
        position: The claim's or chunk's index in the item.
        text: The claim, or the chunk's text.
        context: The chunks a claim was judged against (empty for a chunk).
        input: The item's question.
        reference: What a chunk was judged against: the ground truth, or the response
            for context utilization ("" for a claim).
        supported: The judge's verdict: supported (claim) or useful (chunk); for a
            relevance verdict, whether its level is high or medium.
        reason: The judge's reason.
        grade: A relevance verdict's level as a grade: 0 none, 1 low, 2 medium, 3 high
            (None for yes/no verdicts).
    """

    scorer_id: str
    kind: Literal["claim", "chunk", "relevance"]
    judge_model: str
    prompt_version: str
    run: str = ""
    item_id: str = ""
    position: int = 0
    text: str
    context: list[str] = []
    input: str = ""
    reference: str = ""
    supported: bool
    reason: str = ""
    grade: int | None = None

    @property
    def graded(self) -> bool:
        """Whether people answer it with a level (0-3), not yes / no."""
        return self.kind == "relevance"

    def label_for(self, agree: bool) -> bool | int:
        """The label of a person who agrees with the judge (its own answer) or does not
        (the opposite answer; on a graded verdict the far end of the scale: none for a
        high or medium level, high for a low or none one)."""
        if self.graded:
            grade = self.grade or 0
            return grade if agree else (0 if grade >= 2 else 3)
        return self.supported if agree else not self.supported

    @property
    def key(self) -> str:
        """What identifies the question judged: the same claim over the same context (or
        chunk for the same reference) asked of the same judge and prompt is one label,
        whichever run showed it."""
        what = [
            self.scorer_id,
            self.judge_model,
            self.prompt_version,
            self.kind,
            self.text,
            self.context,
            self.input,
            self.reference,
        ]
        return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode()).hexdigest()[:32]


class Label(BaseModel):
    """A person's label on a `JudgeVerdict`.

    Attributes:
        key: The verdict's key.
        verdict: The verdict labelled.
        label: True (supported / useful), False (not), None (the person could not decide);
            for a graded verdict the person's grade, 0-3.
        updated: When it was last set (ISO 8601, UTC).
        annotator: Who labelled ("" for a label made before names were asked); one
            verdict holds one label per person.
        note: The person's note with the label ("" for none).
        blind: Whether the person answered before seeing the judge's verdict.
    """

    key: str
    verdict: JudgeVerdict
    label: bool | int | None
    updated: str
    annotator: str = ""
    note: str = ""
    blind: bool = False

    @property
    def agrees(self) -> bool | None:
        """Whether the person agrees with the judge (None: could not decide); on a
        graded verdict, whether they gave the same grade."""
        if self.label is None:
            return None
        if self.verdict.graded:
            return self.label == self.verdict.grade
        return self.label == self.verdict.supported


SPLIT = "split"
"""`people_label`'s answer when the people who decided a question gave no majority."""


def people_label(labels: Iterable[Label]) -> bool | int | str | None:
    """The people's label of one question, from each person's label on it: the label a
    strict majority of those who decided gave, None when nobody decided, `SPLIT` when
    they gave no majority (one person's label is theirs)."""
    decided = Counter(x.label for x in labels if x.label is not None)
    if not decided:
        return None
    (top, count), *_ = decided.most_common(1)
    return top if 2 * count > sum(decided.values()) else SPLIT


def by_question(labels: Iterable[Label]) -> dict[str, list[Label]]:
    """Labels grouped by the question they are on (its key), in the order first labelled."""
    grouped: dict[str, list[Label]] = {}
    for found in labels:
        grouped.setdefault(found.key, []).append(found)
    return grouped
