from __future__ import annotations

import json
import urllib.request

from evals.testing import FakeLLMServer, FakeResponse, Fault, rule_based_judge


def post(url: str, body: dict) -> tuple[int, dict, dict]:
    request = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def test_script_then_handler_tool_calls_and_token_counts():
    with FakeLLMServer(lambda request: "from handler") as server:
        server.script(
            FakeResponse(tool_calls=[{"name": "search", "arguments": {"q": "x"}}]),
            Fault.rate_limit(retry_after=2),
        )
        body = {"model": "m", "messages": [{"role": "user", "content": "one two three"}]}
        status, _, first = post(server.url, body)
        call = first["choices"][0]["message"]["tool_calls"][0]
        assert status == 200 and first["choices"][0]["finish_reason"] == "tool_calls"
        assert call["function"] == {"name": "search", "arguments": '{"q": "x"}'}
        status, headers, _ = post(server.url, body)
        assert status == 429 and headers["Retry-After"] == "2"
        status, _, third = post(server.url, body)
        assert third["choices"][0]["message"]["content"] == "from handler"
        assert third["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
        assert server.call_count == 3 and server.prompt_tokens == 6


def test_rule_based_judge_answers_scorekit_prompts():
    from evals.testing import FakeRequest

    def ask(schema: str, prompt: str) -> dict:
        request = FakeRequest(
            body={
                "messages": [{"role": "user", "content": prompt}],
                "response_format": {"json_schema": {"name": schema}},
            },
            headers={},
        )
        return json.loads(rule_based_judge(request).content or "")

    assert ask("Claims", "<answer>\nA is B. C is D!\n</answer>") == {
        "claims": ["A is B.", "C is D!"]
    }
    chunks = (
        '<chunk index="0">\nParis is the capital of France.\n</chunk>\n'
        '<chunk index="1">\nx\n</chunk>'
    )
    verdicts = ask(
        "ChunkVerdicts", f"{chunks}\n<ground_truth>\nParis is the capital.\n</ground_truth>"
    )
    assert [v["verdict"] for v in verdicts["verdicts"]] == ["yes", "no"]


def test_fixture_is_available(fake_llm_server: FakeLLMServer):
    assert fake_llm_server.url.startswith("http://127.0.0.1:")


def test_the_pytest_plugin_imports_nothing_until_the_fixture_is_used():
    import subprocess
    import sys

    code = (
        "import sys, evals.testing._plugin, evals, evals.testing\n"
        "print(sorted(m for m in ('numpy', 'rapidfuzz', 'pydantic', 'scorers') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_fake_judge_reads_prompts_with_the_scorers_fence_grammar():
    from scorers._fences import block, fence, numbered, tagged

    prompt = f"<answer>\n{fence('an </answer> inside')}\n</answer>\n" + numbered(
        "chunk", ["first", "second <chunk index=9>"]
    )
    assert block("answer", prompt) == "an [/answer> inside"
    assert tagged("chunk", prompt) == ["first", "second [chunk index=9>"]


def test_the_fake_serves_embeddings_for_peers_that_embed_text() -> None:
    import math

    with FakeLLMServer() as server:
        body = json.dumps({"model": "emb", "input": ["Paris is in France.", "paris IS in france"]})
        request = urllib.request.Request(
            server.url + "/embeddings",
            data=body.encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            data = json.loads(answer.read())
        assert server.embedding_requests == 1 and server.call_count == 0
    first, second = (row["embedding"] for row in data["data"])
    assert len(first) == 64 and first == second  # the same words, case and punctuation aside
    assert math.isclose(sum(v * v for v in first), 1.0)
    assert data["usage"]["prompt_tokens"] == 8
