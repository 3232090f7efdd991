"""OpenTelemetry spans, only with a configured tracer provider (run in a subprocess: a
provider is process-global)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SETUP = """
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
"""
"""A tracer provider exporting to memory (a provider is process-global: each script
runs in its own interpreter)."""

TRACED = """
import json
{SETUP}
from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import create_context_recall_scorer, create_id_context_recall_scorer

data = [{"id": "q1", "input": "Where was Einstein born?", "ground_truth": "Einstein was born in Ulm.",
         "context": [{"id": "d1", "text": "Einstein was born in Ulm."}], "reference_context_ids": ["d1"]}]
with FakeLLMServer() as server:
    run_evals(data, [create_context_recall_scorer(server.judge()), create_id_context_recall_scorer()],
              progress=False)
run_evals(data, [create_id_context_recall_scorer()], progress=False)  # the inline block path
spans = exporter.get_finished_spans()
by_id = {s.context.span_id: s for s in spans}
print(json.dumps([{"name": s.name, "parent": by_id[s.parent.span_id].name if s.parent else None,
                   "kind": s.kind.name, "attributes": dict(s.attributes),
                   "events": [e.name for e in s.events],
                   "evaluations": [dict(e.attributes) for e in s.events
                                   if e.name == "gen_ai.evaluation.result"]}
                  for s in spans], default=str))
""".replace("{SETUP}", SETUP)


@pytest.mark.slow
def test_runs_items_scorers_and_judge_calls_are_spans():
    pytest.importorskip("opentelemetry.sdk", reason="pip install opentelemetry-sdk")
    proc = subprocess.run(
        [sys.executable, "-c", TRACED], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    spans = json.loads(proc.stdout.strip().splitlines()[-1])
    names = [(s["name"], s["parent"]) for s in spans]
    assert names.count(("scorekit.item", "scorekit.run")) == 2
    assert ("scorekit.run", None) in names
    chats = [s for s in spans if s["name"] == "chat fake-judge"]
    assert len(chats) == 2 and all(s["parent"] == "scorekit.score" for s in chats)
    assert all(s["kind"] == "CLIENT" for s in chats)
    chat = chats[0]["attributes"]
    assert chat["gen_ai.operation.name"] == "chat" and chat["gen_ai.usage.input_tokens"] > 0
    assert chat["gen_ai.request.model"] == "fake-judge"
    assert chat["gen_ai.provider.name"] == "openai" and chat["openinference.span.kind"] == "LLM"
    assert "gen_ai.input.messages" not in chat and "input.value" not in chat  # not opted in
    scores = [s for s in spans if s["name"] == "scorekit.score"]
    recall = next(s for s in scores if s["attributes"]["scorekit.scorer.id"] == "context-recall")
    assert recall["attributes"]["scorekit.score"] == 1.0 and recall["parent"] == "scorekit.item"
    assert recall["attributes"]["scorekit.status"] == "scored" and recall["events"] == [
        "scorekit.reason"
    ]
    assert sum(s["attributes"]["scorekit.scorer.id"] == "id-context-recall" for s in scores) == 2
    items = [s for s in spans if s["name"] == "scorekit.item"]
    first = {e["gen_ai.evaluation.name"]: e for e in items[0]["evaluations"]}
    assert set(first) == {"context-recall", "id-context-recall"}  # on the run's span
    assert first["context-recall"]["gen_ai.evaluation.score.value"] == 1.0
    assert first["context-recall"]["gen_ai.evaluation.score.label"] == "scored"
    assert "supported" in first["context-recall"]["gen_ai.evaluation.explanation"]
    assert [e["gen_ai.evaluation.name"] for e in items[1]["evaluations"]] == ["id-context-recall"]


UNDER_A_CALLER = """
import json, os
os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "true"
{SETUP}
from evals.testing import FakeLLMServer
from scorers import create_context_recall_scorer

with FakeLLMServer() as server:
    recall = create_context_recall_scorer(server.judge(), {"context": ["Einstein was born in Ulm."]})
    with trace.get_tracer("app").start_as_current_span("my rag call"):
        recall.run(input="Where?", ground_truth="Einstein was born in Ulm.")
spans = exporter.get_finished_spans()
mine = next(s for s in spans if s.name == "my rag call")
chat = next(s for s in spans if s.name.startswith("chat "))
print(json.dumps({"events": [dict(e.attributes) for e in mine.events],
                  "chat": dict(chat.attributes)}, default=str))
""".replace("{SETUP}", SETUP)


@pytest.mark.slow
def test_a_score_under_the_callers_span_and_content_only_when_opted_in():
    pytest.importorskip("opentelemetry.sdk", reason="pip install opentelemetry-sdk")
    proc = subprocess.run(
        [sys.executable, "-c", UNDER_A_CALLER], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    (event,) = found["events"]  # the score landed on the caller's own span
    assert event["gen_ai.evaluation.name"] == "context-recall"
    assert event["gen_ai.evaluation.score.value"] == 1.0
    chat = found["chat"]
    messages = json.loads(chat["gen_ai.input.messages"])
    assert messages[-1]["parts"][0]["type"] == "text" and "Einstein" in chat["input.value"]
    assert json.loads(chat["gen_ai.output.messages"])[0]["role"] == "assistant"
    assert chat["output.value"]


def test_without_a_provider_nothing_is_emitted():
    code = "from scorers._telemetry import tracer\nprint(tracer())\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "None"


LIVE = """
import asyncio, json
{SETUP}
from evals import scored
from scorers import create_id_context_recall_scorer

@scored(scorers=[create_id_context_recall_scorer()])
async def rag(question):
    return {"output": "x", "context": [{"id": question, "text": "t"}]}

async def main():
    tracer = trace.get_tracer("app")
    for question in ("d1", "d2"):
        with tracer.start_as_current_span(f"request {question}"):
            await rag(question)  # returns at once: the scorer runs after the span ends
    await rag.aflush_scores()

asyncio.run(main())
spans = exporter.get_finished_spans()
by_id = {s.context.span_id: s for s in spans}
print(json.dumps([{"name": s.name, "parent": by_id[s.parent.span_id].name if s.parent else None,
                   "events": [e.name for e in s.events]} for s in spans]))
""".replace("{SETUP}", SETUP)


@pytest.mark.slow
def test_live_scores_land_under_the_span_of_the_call_they_score():
    pytest.importorskip("opentelemetry.sdk", reason="pip install opentelemetry-sdk")
    proc = subprocess.run([sys.executable, "-c", LIVE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    spans = json.loads(proc.stdout.strip().splitlines()[-1])
    scores = [s for s in spans if s["name"] == "scorekit.score"]
    # before: every live score hung under the first request's span (the service's context)
    assert sorted(s["parent"] for s in scores) == ["request d1", "request d2"]
    assert all("gen_ai.evaluation.result" in s["events"] for s in scores)  # callers had ended


RELEVANCE = """
import json
{SETUP}
from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import create_context_relevance_scorer

data = [{"id": "q1", "input": "Where was Einstein born?",
         "context": [{"id": "d1", "text": "Einstein was born in Ulm."}]}]
with FakeLLMServer() as server:
    run_evals(data, [create_context_relevance_scorer(server.judge())], progress=False)
print(json.dumps([{"name": s.name, "evaluations": [dict(e.attributes) for e in s.events
                   if e.name == "gen_ai.evaluation.result"]}
                  for s in exporter.get_finished_spans()], default=str))
""".replace("{SETUP}", SETUP)


@pytest.mark.slow
def test_context_relevance_reports_its_evaluation_event():
    pytest.importorskip("opentelemetry.sdk", reason="pip install opentelemetry-sdk")
    proc = subprocess.run(
        [sys.executable, "-c", RELEVANCE], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    spans = json.loads(proc.stdout.strip().splitlines()[-1])
    events = [e for s in spans for e in s["evaluations"]]
    assert any("context-relevance" in json.dumps(e) for e in events), spans
    assert any(s["name"].startswith("scorekit.") and "relevance" in json.dumps(s) for s in spans)
