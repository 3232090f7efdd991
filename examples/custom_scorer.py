"""A custom scorer from the same pipeline the prebuilt ones use.

"answer-grounding": which sentences of the answer are supported by the retrieved
context? Step 1 (a function) splits the answer; step 2 (a PromptStep) asks the judge for
one verdict per sentence, reusing scorekit's claim-verdict contract; the score is
computed by our code.

    python examples/custom_scorer.py
"""

import re

from _judge import example_judge

from scorers import ClaimVerdicts, PromptStep, create_scorer, not_scorable


def sentences(run, results):
    found = [s for s in re.split(r"(?<=[.!?])\s+", str(run.output or "").strip()) if s]
    return found or not_scorable("no answer to check")


def verdict_prompt(run, results):
    chunks = "\n".join(
        f'<chunk index="{i}">\n{c.text}\n</chunk>' for i, c in enumerate(run.context or [])
    )
    claims = "\n".join(
        f'<claim index="{i}">\n{s}\n</claim>' for i, s in enumerate(results["sentences"])
    )
    return (
        "For each claim, answer yes if the context supports it, else no.\n\n"
        f"<context>\n{chunks}\n</context>\n\n<claims>\n{claims}\n</claims>"
    )


with example_judge() as judge:
    grounding = (
        create_scorer(id="answer-grounding", description="answer sentences supported", judge=judge)
        .preprocess(sentences, name="sentences")
        .analyze(
            PromptStep(
                description="one verdict per sentence",
                output_schema=ClaimVerdicts,
                create_prompt=verdict_prompt,
            ),
            name="verdicts",
        )
        .generate_score(
            lambda run, results: (
                sum(v.verdict == "yes" for v in results["verdicts"].verdicts)
                / len(results["sentences"])
            )
        )
        .generate_reason(lambda run, results, score: f"{score:.0%} of the answer is grounded")
    )
    result = grounding.run(
        output="Einstein was born in Ulm. He invented the telephone.",
        context=["Albert Einstein was born in Ulm in 1879."],
    )
    print(f"{result.scorer_id}: {result.score:.2f} — {result.reason}")
    for verdict in result.details["verdicts"]["verdicts"]:
        print(f"  sentence {verdict['claim_index']}: {verdict['verdict']}")
