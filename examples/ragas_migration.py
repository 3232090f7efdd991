"""The Ragas documentation's examples, run against scorekit's facade.

Only the imports changed. The LLM metrics use SCOREKIT_MODEL when set, else the fake judge.

    python examples/ragas_migration.py
"""

import asyncio

from _judge import example_judge

from scorers.ragas import (
    ContextPrecision,
    ContextRecall,
    ContextUtilization,
    IDBasedContextPrecision,
    IDBasedContextRecall,
    NonLLMContextPrecisionWithReference,
    NonLLMContextRecall,
    SingleTurnSample,
)


async def main(llm):
    # Collections style: await metric.ascore(...) -> MetricResult
    recall = await ContextRecall(llm=llm).ascore(
        user_input="Where is the Eiffel Tower located?",
        retrieved_contexts=["Paris is the capital of France."],
        reference="The Eiffel Tower is located in Paris.",
    )
    print("ContextRecall", recall.value)  # a judgement call: Paris being France's capital
    # does not state where the tower is (the fake judge says 0.0; a real model may differ)
    precision = await ContextPrecision(llm=llm).ascore(
        user_input="Where is the Eiffel Tower located?",
        reference="The Eiffel Tower is located in Paris.",
        retrieved_contexts=["The Eiffel Tower is located in Paris."],
    )
    print("ContextPrecision", precision.value)  # Ragas documents 0.9999999999
    utilization = await ContextUtilization(llm=llm).ascore(
        user_input="Where is the Eiffel Tower located?",
        response="The Eiffel Tower is located in Paris.",
        retrieved_contexts=["The Eiffel Tower is located in Paris."],
    )
    print("ContextUtilization", utilization.value)  # Ragas documents 0.9999999999

    # Legacy style: await metric.single_turn_ascore(SingleTurnSample(...)) -> float
    sample = SingleTurnSample(
        retrieved_contexts=["Paris is the capital of France."],
        reference_contexts=[
            "Paris is the capital of France.",
            "The Eiffel Tower is one of the most famous landmarks in Paris.",
        ],
    )
    print("NonLLMContextRecall", await NonLLMContextRecall().single_turn_ascore(sample))  # 0.5
    sample = SingleTurnSample(
        retrieved_contexts=["The Eiffel Tower is located in Paris."],
        reference_contexts=[
            "Paris is the capital of France.",
            "The Eiffel Tower is one of the most famous landmarks in Paris.",
        ],
    )
    print(
        "NonLLMContextPrecisionWithReference",
        await NonLLMContextPrecisionWithReference().single_turn_ascore(sample),
    )  # 0.9999999999
    sample = SingleTurnSample(
        retrieved_context_ids=["doc_1", "doc_2", "doc_3"],
        reference_context_ids=["doc_1", "doc_4", "doc_5", "doc_6"],
    )
    print("IDBasedContextRecall", await IDBasedContextRecall().single_turn_ascore(sample))  # 0.25
    sample = SingleTurnSample(
        retrieved_context_ids=["doc_1", "doc_2", "doc_3", "doc_4"],
        reference_context_ids=["doc_1", "doc_4"],
    )
    print("IDBasedContextPrecision", await IDBasedContextPrecision().single_turn_ascore(sample))


with example_judge() as llm:
    asyncio.run(main(llm))
