from __future__ import annotations

import subprocess
import sys
import threading
import time

import anyio
import pytest

from evals.testing import FakeLLMServer, FakeResponse, Fault
from scorers import (
    Claims,
    Judge,
    JudgeAPIError,
    JudgeCache,
    create_context_recall_scorer,
)
from scorers._model._structured import extract_json
from scorers._sync import run_sync

CONTEXT = ["Albert Einstein was born on 14 March 1879 in Ulm."]


def test_import_is_fast_and_does_not_import_litellm_or_numpy():
    """Nor an agent framework or OpenTelemetry, whose objects scorekit only duck-types."""
    optional = ("langchain_core", "llama_index", "haystack", "agents", "pydantic_ai")
    code = (
        "import sys, time; t = time.perf_counter(); import scorers, evals; "
        "print(time.perf_counter() - t, 'litellm' in sys.modules, 'numpy' in sys.modules, "
        f"any(m.split('.')[0] in {(*optional, 'opentelemetry')!r} for m in sys.modules)); "
        "scorers.evaluate_ranking({'q': {'d': 1}}, {'q': ['d']}, ['map']); "
        "print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # numpy (0.1-0.15 s) is imported by the first computation that needs it, not by import
    assert out.stdout.split()[1:] == ["False", "False", "False", "True"]


def test_identical_rerun_is_served_from_cache_with_zero_http_calls(tmp_path):
    with FakeLLMServer() as server:
        judge = server.judge(cache=tmp_path / "cache")
        scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
        first = scorer.run(input="q", ground_truth="Einstein was born in Ulm.")
        assert server.call_count == 2 and not any(c.cached for c in first.judge_calls)
        second = scorer.run(input="q", ground_truth="Einstein was born in Ulm.")
        assert server.call_count == 2
        assert second.score == first.score == 1.0
        assert all(c.cached and c.attempts == 0 and c.cost == 0 for c in second.judge_calls)
        # claim extraction does not depend on the context: a new retriever reuses it
        other = create_context_recall_scorer(judge, {"context": ["Mozart wrote operas."]})
        assert other.run(input="q", ground_truth="Einstein was born in Ulm.").score == 0.0
        assert server.call_count == 3


def test_api_keys_never_reach_the_cache_file(tmp_path):
    secret = "sk-very-secret-key-123"
    with FakeLLMServer() as server:
        judge = server.judge(cache=tmp_path, api_key=secret)
        create_context_recall_scorer(judge, {"context": CONTEXT}).run(ground_truth="Einstein.")
        assert server.requests[0].headers["authorization"] == f"Bearer {secret}"
    files = list(tmp_path.iterdir())
    assert files and all(secret.encode() not in f.read_bytes() for f in files)
    assert len(JudgeCache(tmp_path)) == 2


def test_default_cache_lives_in_scorekit_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOREKIT_CACHE_DIR", str(tmp_path / "here"))
    with FakeLLMServer() as server:
        judge = server.judge(cache=True)
        create_context_recall_scorer(judge, {"context": CONTEXT}).run(ground_truth="Einstein.")
    assert (tmp_path / "here" / "judge-cache.sqlite3").exists()


@pytest.mark.slow
def test_rate_limit_then_success_honours_retry_after(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(Fault.rate_limit(retry_after=0.3))
    judge = fake_llm_server.judge(retry_backoff=0.0)
    started = time.perf_counter()
    value, calls = anyio.run(
        lambda: judge.structured("<answer>\nA b.\n</answer>", Claims, step="claims")
    )
    assert time.perf_counter() - started >= 0.3
    assert value.claims == ["A b."]
    assert [c.attempts for c in calls] == [2]
    assert fake_llm_server.call_count == 2


def test_server_errors_then_success(fake_llm_server: FakeLLMServer):
    fake_llm_server.script(Fault.server_error(500), Fault.server_error(503))
    scorer = create_context_recall_scorer(fake_llm_server.judge(), {"context": CONTEXT})
    result = scorer.run(ground_truth="Einstein was born in Ulm.")
    assert result.score == 1.0
    assert [c.attempts for c in result.judge_calls] == [3, 1]


def test_unauthorized_fails_fast(fake_llm_server: FakeLLMServer):
    fake_llm_server.handler = lambda request: Fault.unauthorized()
    scorer = create_context_recall_scorer(
        fake_llm_server.judge(max_retries=5), {"context": CONTEXT}
    )
    with pytest.raises(JudgeAPIError, match="API key") as info:
        scorer.run(ground_truth="Einstein was born in Ulm.")
    assert info.value.status_code == 401 and not info.value.retryable
    assert fake_llm_server.call_count == 1


def test_bad_request_fails_fast(fake_llm_server: FakeLLMServer):
    fake_llm_server.handler = lambda request: Fault.bad_request("unknown model")
    with pytest.raises(JudgeAPIError, match="HTTP 400"):
        run_sync(lambda: fake_llm_server.judge().structured("x", Claims, step="claims"))
    assert fake_llm_server.call_count == 1


@pytest.mark.slow
def test_hanging_server_times_out_and_retries_run_out(fake_llm_server: FakeLLMServer):
    fake_llm_server.handler = lambda request: Fault.hang(30)
    judge = fake_llm_server.judge(timeout=0.3, max_retries=1)
    with pytest.raises(
        JudgeAPIError, match=r"timed out after 0\.3 s on each of 2 attempts"
    ) as info:
        run_sync(lambda: judge.structured("x", Claims, step="claims"))
    assert info.value.retryable
    assert fake_llm_server.call_count == 2


def test_usage_and_unknown_cost(fake_llm_server: FakeLLMServer):
    scorer = create_context_recall_scorer(fake_llm_server.judge(), {"context": CONTEXT})
    result = scorer.run(ground_truth="Einstein was born in Ulm.")
    total = sum(c.prompt_tokens + c.completion_tokens for c in result.judge_calls)
    assert total == fake_llm_server.prompt_tokens + fake_llm_server.completion_tokens > 0
    assert all(c.cost is None for c in result.judge_calls)  # not a made-up 0
    assert result.judge_calls[0].messages[-1]["content"].startswith("Break the reference")
    assert result.judge_calls[0].model == "openai/fake-judge"


def test_a_declared_price_gives_the_exact_cost(fake_llm_server: FakeLLMServer):
    judge = fake_llm_server.judge(
        cache=False, input_cost_per_token=2e-6, output_cost_per_token=1e-5
    )
    scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
    result = scorer.run(ground_truth="Einstein was born in Ulm.")
    for call in result.judge_calls:
        expected = call.prompt_tokens * 2e-6 + call.completion_tokens * 1e-5
        assert call.cost == pytest.approx(expected, rel=1e-9) and call.cost > 0


def test_response_format_carries_the_schema(fake_llm_server: FakeLLMServer):
    anyio.run(
        lambda: fake_llm_server.judge().structured("<answer>\nA.\n</answer>", Claims, step="claims")
    )
    fmt = fake_llm_server.requests[0].body["response_format"]
    assert fmt["json_schema"]["name"] == "Claims"
    assert fmt["json_schema"]["schema"]["required"] == ["claims"]
    assert '"claims"' in fake_llm_server.requests[0].prompt  # shape stated in the prompt too


def test_concurrency_is_bounded_by_the_limiter():
    in_flight, peak, lock = [0], [0], threading.Lock()

    def handler(request):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return FakeResponse('{"claims": []}')

    with FakeLLMServer(handler) as server:
        judge = server.judge(max_concurrency=3)

        async def main():
            async with anyio.create_task_group() as tg:
                for i in range(12):
                    tg.start_soon(lambda i=i: judge.structured(f"p{i}", Claims, step="claims"))

        run_sync(main)
    assert server.call_count == 12 and peak[0] == 3


def test_extract_json_tolerates_fences_and_prose():
    assert extract_json('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert extract_json('Here you go: {"a": {"b": 2}} hope it helps') == '{"a": {"b": 2}}'


def test_unwritable_default_cache_falls_back_to_no_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SCOREKIT_CACHE_DIR", str(blocker / "cache"))
    with pytest.warns(UserWarning, match="judge cache disabled"):
        judge = Judge("openai/x")
    assert judge.cache is None
