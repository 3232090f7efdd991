"""`rule_based_judge`: the fake server's default handler, answering scorekit's judge
prompts by rule (`scorers._prebuilt._rule_judge`) for exact expected scores."""

from __future__ import annotations

from scorers._internal import rule_answer, supports

from ._exchange import FakeRequest, FakeResponse


def rule_based_judge(request: FakeRequest) -> FakeResponse:
    """Answer scorekit's judge prompts deterministically, without a model.

    - ``Claims``: one claim per sentence of the ``<answer>``.
    - ``ClaimVerdicts``: "yes" when one chunk contains ≥ 60% of the claim's content words.
    - ``ChunkVerdicts``: "yes" when the chunk supports some sentence of the reference.
    - ``Reason``: a fixed sentence.
    - ``WrittenQuestion`` (`evals.synthesize`'s writer): the first sentence of each
      passage is the answer; the question names its first words, in the passages'
      language.
    - ``LabelVerdict`` (the label check): each check by word overlap and script.
    """
    return FakeResponse(rule_answer(request.task_prompt, request.schema_name))


__all__ = ["rule_based_judge", "supports"]
