"""The judge's layers, driven through `ScriptedTransport` (in process, no HTTP)."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import time

import anyio
import pytest

from scorers import (
    Claims,
    Completion,
    ConfigError,
    Judge,
    JudgeAPIError,
    JudgeAuthError,
    JudgeOutputError,
    JudgeSetupError,
    ModelRequest,
    ScriptedTransport,
    ToolCall,
    Transport,
    TransportError,
    create_context_precision_scorer,
    create_context_recall_scorer,
)
from scorers._model._litellm import LITELLM_PARAMS, OWNED_PARAMS, LiteLLMTransport
from scorers._sync import run_sync

CLAIMS = '{"claims": ["Einstein was born in Ulm."]}'
CONTEXT = ["Einstein was born in Ulm in 1879.", "Paris is in France."]


def scripted(*answers, **options) -> tuple[Judge, ScriptedTransport]:
    """A judge whose transport gives ``answers`` in turn (the last one repeats)."""
    queue = list(answers)

    def answer(request: ModelRequest):
        return queue.pop(0) if len(queue) > 1 else queue[0]

    transport = ScriptedTransport(answer)
    options.setdefault("cache", False)
    options.setdefault("retry_backoff", 0.0)
    return Judge("scripted/judge", transport=transport, **options), transport


def test_scripted_transport_is_a_transport_and_its_answers_are_validated():
    judge, transport = scripted(Completion(content=CLAIMS, prompt_tokens=7, cost=0.5))
    assert isinstance(transport, Transport) and isinstance(LiteLLMTransport(), Transport)
    value, calls = run_sync(lambda: judge.structured("claims?", Claims, step="claims"))
    assert value.claims == ["Einstein was born in Ulm."]
    assert (calls[0].prompt_tokens, calls[0].cost, calls[0].attempts) == (7, 0.5, 1)
    request = transport.requests[0]
    assert request.model == "scripted/judge" and request.params["temperature"] == 0.0
    assert request.params["response_format"]["json_schema"]["name"] == "Claims"


def test_retryable_errors_are_retried_and_every_attempt_counted():
    judge, transport = scripted(
        TransportError("rate_limit", "slow down", status=429, retry_after=0),
        TransportError("server", "oops", status=503),
        CLAIMS,
    )
    _, calls = run_sync(lambda: judge.structured("claims?", Claims, step="claims"))
    assert calls[0].attempts == 3 and len(transport.requests) == 3


@pytest.mark.parametrize(
    ("kind", "status", "error", "words"),
    [
        ("auth", 401, JudgeAuthError, "rejected the API key"),
        ("permission", 403, JudgeAuthError, "refused access"),
        ("not_found", 404, JudgeSetupError, "does not know this model"),
        ("bad_request", 400, JudgeAPIError, "refused the request as invalid"),
        ("context_window", 400, JudgeAPIError, "context window"),
    ],
)
def test_refusals_are_never_retried_and_name_model_step_and_status(kind, status, error, words):
    judge, transport = scripted(TransportError(kind, "provider says no", status=status))
    with pytest.raises(error, match=words) as info:
        run_sync(lambda: judge.structured("claims?", Claims, step="claims"))
    message = str(info.value)
    assert "scripted/judge" in message and "'claims'" in message and f"HTTP {status}" in message
    assert len(transport.requests) == 1 and info.value.attempts == 1
    assert info.value.kind == kind and info.value.step == "claims"
    assert (kind in ("auth", "permission", "not_found")) == isinstance(info.value, JudgeSetupError)


def test_a_timeout_names_its_seconds():
    async def hang(request):
        await anyio.sleep(5)

    judge = Judge(
        "scripted/judge",
        transport=ScriptedTransport(hang),
        cache=False,
        timeout=0.05,
        max_retries=1,
        retry_backoff=0.0,
    )
    with pytest.raises(JudgeAPIError, match=r"timed out after 0\.05 s on each of 2 attempts"):
        run_sync(lambda: judge.structured("claims?", Claims, step="claims"))


def test_any_other_exception_of_a_transport_is_a_clear_non_retryable_error():
    judge, transport = scripted(KeyError("boom"))
    with pytest.raises(JudgeAPIError, match="KeyError"):
        run_sync(lambda: judge.structured("claims?", Claims, step="claims"))
    assert len(transport.requests) == 1


def test_a_repair_failure_keeps_the_raw_text_and_both_calls():
    judge, _ = scripted("not json at all")
    scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
    with pytest.raises(JudgeOutputError) as info:
        scorer.run(ground_truth="Einstein was born in Ulm.")
    assert info.value.raw_text == "not json at all"
    assert [c.attempts for c in info.value.judge_calls] == [1, 1]  # type: ignore[attr-defined]
    result = scorer.error_result(info.value)
    assert result.status == "error" and len(result.judge_calls) == 2


def test_unknown_keywords_are_refused_with_the_closest_names():
    with pytest.raises(ConfigError, match="temperature"):
        Judge("openai/x", tempreature=0.2)
    with pytest.raises(ConfigError, match="max_retries"):
        Judge("openai/x", num_retries=3)
    judge, transport = scripted(CLAIMS, presence_penalty=0.5, litellm_kwargs={"my_flag": 1})
    run_sync(lambda: judge.structured("claims?", Claims, step="claims"))
    assert transport.requests[0].params["presence_penalty"] == 0.5
    assert transport.requests[0].params["my_flag"] == 1


def test_the_known_litellm_parameters_are_litellms_own():
    from scorers._model._litellm import import_litellm

    litellm = import_litellm()
    accepted = set(inspect.signature(litellm.completion).parameters) - {"kwargs"}
    judges_own = set(inspect.signature(Judge).parameters)
    assert accepted - set(OWNED_PARAMS) - judges_own <= LITELLM_PARAMS


def test_cache_key_covers_every_parameter_that_can_change_the_answer():
    messages = [{"role": "user", "content": "x"}]

    def key(**options):
        judge = Judge("openai/x", cache=False, **options)
        return judge.cache_key(messages, Claims)

    base = key()
    assert key() == base
    for options in (
        {"presence_penalty": 0.1},
        {"reasoning_effort": "low"},
        {"extra_body": {"top_k": 3}},
        {"structured_output": "json_object"},
        {"litellm_kwargs": {"anything": 1}},
        {"extra_headers": {"x-route": "b"}},
    ):
        assert key(**options) != base, options
    judge = Judge("openai/x", cache=False)
    assert judge.cache_key(messages, Claims, version="2") != base
    # keys and credentials never make a difference (nor reach the key's input)
    assert key(api_key="sk-1") == key(api_key="sk-2") == base
    assert key(extra_headers={"Authorization": "a"}) == key(extra_headers={"Authorization": "b"})


def test_per_chunk_judging_survives_a_judge_that_numbers_every_chunk_zero():
    def judge_chunk(request: ModelRequest) -> str:
        useful = "Ulm" in request.prompt.split("<context>")[1]
        verdict = {"context_index": 0, "verdict": "yes" if useful else "no", "reason": "r"}
        return json.dumps({"verdicts": [verdict]})

    transport = ScriptedTransport(judge_chunk)
    judge = Judge("scripted/judge", transport=transport, cache=False)
    scorer = create_context_precision_scorer(judge, {"per_chunk": True})
    result = scorer.run(
        ground_truth="Einstein was born in Ulm.",
        context=["Paris is in France.", "Einstein was born in Ulm.", "Rome is in Italy."],
    )
    assert result.status == "scored" and result.score == pytest.approx(1 / 2)
    assert [v["context_index"] for v in result.details["verdicts"]["verdicts"]] == [0, 1, 2]
    assert len(transport.requests) == 3
    assert all('<chunk index="0">' in r.prompt for r in transport.requests)
    assert all('<chunk index="1">' not in r.prompt for r in transport.requests)


def test_a_lone_verdict_is_accepted_whatever_index_it_carries():
    def judge_chunk(request: ModelRequest) -> str:
        return json.dumps({"verdicts": [{"context_index": 7, "verdict": "yes", "reason": "r"}]})

    judge = Judge("scripted/judge", transport=ScriptedTransport(judge_chunk), cache=False)
    scorer = create_context_precision_scorer(judge, {"per_chunk": True})
    result = scorer.run(ground_truth="x", context=["a", "b"])
    assert result.score == 1.0


def test_per_chunk_errors_are_the_error_not_an_exception_group():
    judge, _ = scripted(TransportError("auth", "bad key", status=401))
    scorer = create_context_precision_scorer(judge, {"per_chunk": True})
    with pytest.raises(JudgeAuthError, match="HTTP 401"):
        scorer.run(ground_truth="x", context=["a", "b", "c"])


def test_run_many_stops_at_a_broken_setup_and_keeps_other_errors_per_run():
    judge, transport = scripted(TransportError("auth", "bad key", status=401))
    scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
    runs = [{"ground_truth": f"Fact {i}."} for i in range(20)]
    with pytest.raises(JudgeAuthError):
        scorer.run_many(runs, concurrency=2)
    assert len(transport.requests) <= 2
    judge, _ = scripted(TransportError("bad_request", "too long", status=400))
    scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
    results = scorer.run_many(runs[:3])
    assert [r.status for r in results] == ["error"] * 3
    assert all(r.judge_calls and r.judge_calls[0].error for r in results)


def test_a_judge_cap_holds_in_run_many_whatever_its_concurrency():
    in_flight = peak = 0

    async def slow(request: ModelRequest) -> str:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await anyio.sleep(0.01)
        in_flight -= 1
        return CLAIMS if "atomic" in request.prompt else verdicts_for(request)

    judge = Judge(
        "scripted/judge", transport=ScriptedTransport(slow), cache=False, max_concurrency=3
    )
    scorer = create_context_recall_scorer(judge, {"context": CONTEXT})
    scorer.run_many([{"ground_truth": f"Fact {i}."} for i in range(30)], concurrency=30)
    assert peak == 3


def verdicts_for(request: ModelRequest) -> str:
    """A "yes" for every claim of a claim-verdicts prompt."""
    n = request.prompt.count("<claim index=")
    verdicts = [{"claim_index": i, "verdict": "yes", "reason": "r"} for i in range(n)]
    return json.dumps({"verdicts": verdicts})


def test_requests_per_minute_spaces_request_starts():
    judge, _ = scripted(CLAIMS, requests_per_minute=1200)  # one per 50 ms
    started = time.perf_counter()

    async def five() -> None:
        async with anyio.create_task_group() as tg:
            for _ in range(5):
                tg.start_soon(lambda: judge.structured("claims?", Claims, step="claims"))

    run_sync(five)
    assert time.perf_counter() - started >= 0.2 - 0.01


def test_secrets_are_redacted_from_errors_and_answers():
    secret = "sk-very-secret-123456"
    judge, _ = scripted(
        TransportError("bad_request", f"invalid request for key {secret}", status=400),
        api_key=secret,
    )
    with pytest.raises(JudgeAPIError) as info:
        run_sync(lambda: judge.structured("claims?", Claims, step="claims"))
    assert secret not in str(info.value) and "[redacted]" in str(info.value)
    assert all(secret not in (c.error or "") for c in info.value.judge_calls)  # type: ignore[attr-defined]
    header = "hdr-value-abcdef"
    judge, _ = scripted(f'{{"claims": ["echo {header}"]}}', extra_headers={"X-Api-Token": header})
    value, calls = run_sync(lambda: judge.structured("claims?", Claims, step="claims"))
    assert value.claims == ["echo [redacted]"] and header not in calls[0].response


def test_tool_calls_come_back_as_completions():
    answer = Completion(tool_calls=[ToolCall(id="c1", name="search", arguments='{"q": "x"}')])
    judge, _ = scripted(answer)
    completion, call = run_sync(lambda: judge.chat([{"role": "user", "content": "hi"}]))
    assert completion.tool_calls[0].name == "search" and call.attempts == 1


def test_transport_and_client_processes_exclude_each_other():
    with pytest.raises(ConfigError, match="not both"):
        Judge("x/y", transport=ScriptedTransport(lambda r: "{}"), client_processes=2)
    with pytest.raises(ConfigError, match="complete"):
        Judge("x/y", transport=object())  # type: ignore[arg-type]


def test_a_missing_key_fails_before_importing_litellm_or_sending_anything():
    code = (
        "import sys, time\n"
        "from scorers import create_context_recall_scorer, JudgeAuthError\n"
        "scorer = create_context_recall_scorer('openai/gpt-4o-mini', {'context': ['a']})\n"
        "try:\n"
        "    scorer.run(ground_truth='Einstein was born in Ulm.')\n"
        "except JudgeAuthError as exc:\n"
        "    print('litellm' in sys.modules, exc)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    ).stdout
    imported, message = out.split(" ", 1)
    assert imported == "False"  # why it fails at once: litellm's import takes seconds
    assert "OPENAI_API_KEY" in message and "api_key=" in message
    assert "no request sent" in message


def test_litellms_missing_credentials_error_is_an_auth_error(monkeypatch):
    """The provider check aside, litellm's own client-side failure maps to "auth"."""
    from scorers._model._litellm import import_litellm, map_litellm_error

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    litellm = import_litellm()
    request = ModelRequest(model="openai/gpt-4o-mini", messages=[{"role": "user", "content": "x"}])

    async def call() -> BaseException:
        try:
            await litellm.acompletion(
                model=request.model, messages=request.messages, num_retries=0, max_retries=0
            )
        except Exception as exc:
            return exc
        raise AssertionError("litellm did not fail without a key")

    exc = run_sync(call)
    assert type(exc).__name__ == "InternalServerError"  # what litellm calls it
    error = map_litellm_error(exc, request)
    assert error.kind == "auth" and not error.retryable and "OPENAI_API_KEY" in error.missing_env


def test_a_generic_litellm_error_is_classified_by_its_status():
    from scorers._model._litellm import import_litellm, map_litellm_error

    litellm = import_litellm()
    request = ModelRequest(model="openai/x", messages=[], api_key="k")
    for status, kind in (
        (401, "auth"),
        (404, "not_found"),
        (429, "rate_limit"),
        (400, "bad_request"),
    ):
        exc = litellm.APIError(status_code=status, message="m", llm_provider="openai", model="x")
        assert map_litellm_error(exc, request).kind == kind, status
    exc = litellm.APIError(status_code=503, message="m", llm_provider="openai", model="x")
    assert map_litellm_error(exc, request).kind == "server"
