"""Cold start: litellm is imported only when a request must leave the process, and the
setup it needs is not charged to the timeouts of the calls that wait for it."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

import anyio
import pytest

from scorers._model._listing import count_tokens_offline, encoding_name, listed_price
from scorers._model._setup import timed, untimed


@pytest.mark.anyio
async def test_setup_time_is_not_charged_to_a_timeout():
    with anyio.fail_after(0.3) as scope, timed(scope):
        async with untimed():
            await anyio.sleep(0.5)  # longer than the whole timeout
        await anyio.sleep(0.1)  # what the timeout had left is still there


@pytest.mark.anyio
async def test_the_timeout_resumes_with_what_it_had_left():
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.3) as scope, timed(scope):
            async with untimed():
                await anyio.sleep(0.05)
            await anyio.sleep(1.0)


@pytest.mark.anyio
async def test_several_waiters_of_one_scope_resume_it_once_the_last_is_done():
    with anyio.fail_after(0.4) as scope, timed(scope):
        before = scope.deadline

        async def wait(seconds: float) -> None:
            async with untimed():
                await anyio.sleep(seconds)

        async with anyio.create_task_group() as tg:
            tg.start_soon(wait, 0.2)
            tg.start_soon(wait, 0.6)
            await anyio.sleep(0.3)
            assert scope.deadline == float("inf")  # the first waiter's end did not resume it
        assert scope.deadline - before == pytest.approx(0.6, abs=0.1)


def test_a_timeout_outside_timed_is_not_stopped():
    async def main() -> None:
        with anyio.fail_after(0.1):
            async with untimed():
                await anyio.sleep(1.0)

    with pytest.raises(TimeoutError):
        anyio.run(main)


MESSAGES = [
    {"role": "system", "content": "You are a judge. Answer with JSON only."},
    {"role": "user", "content": "Einstein was born in Ulm in 1879. 東京は日本の首都です。 Why?"},
    {"role": "assistant", "content": '{"verdicts": [{"claim": 0, "attributed": 1}]}'},
]
OPENAI = ["gpt-4o-mini", "openai/gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-3.5-turbo", "o3-mini"]


@pytest.mark.parametrize("model", OPENAI)
def test_offline_token_counts_are_litellms_for_openai_models(model):
    from scorers._model._litellm import import_litellm

    litellm = import_litellm()
    assert count_tokens_offline(model, MESSAGES) == litellm.token_counter(
        model=model, messages=MESSAGES
    )


PRICED = [*OPENAI, "mistral/mistral-small-latest", "gpt-4-turbo", "openai/fake-judge"]


@pytest.mark.parametrize("model", PRICED)
def test_listed_prices_are_litellms(model):
    from scorers._model._litellm import import_litellm

    litellm = import_litellm()
    try:
        prompt = litellm.cost_per_token(model=model, prompt_tokens=1, completion_tokens=0)[0]
        completion = litellm.cost_per_token(model=model, prompt_tokens=0, completion_tokens=1)[1]
        expected: tuple[float, float] | None = (prompt, completion)
    except Exception:  # litellm does not know it either
        expected = None
    assert listed_price(model) == expected


def test_encodings_by_family():
    assert encoding_name("openai/gpt-4o-mini") == "o200k_base"
    assert encoding_name("o1-preview") == "o200k_base"
    assert encoding_name("gpt-4-turbo") == "cl100k_base"
    assert encoding_name("anthropic/claude-3-haiku") == "cl100k_base"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


WARM = """
import sys
from evals.testing import FakeLLMServer
from scorers import create_context_recall_scorer

with FakeLLMServer(port={port}) as server:
    judge = server.judge(cache={cache!r})
    recall = create_context_recall_scorer(
        judge, {{"context": ["Albert Einstein was born on 14 March 1879 in Ulm."]}}
    )
    result = recall.run(input="Who?", ground_truth="Einstein was born in Ulm. He played violin.")
    print(result.score, server.call_count, "litellm" in sys.modules)
"""


@pytest.mark.slow
def test_a_run_answered_by_the_cache_never_imports_litellm(tmp_path):
    script = tmp_path / "warm.py"
    script.write_text(WARM.format(port=_free_port(), cache=str(tmp_path / "cache.sqlite")))
    first, second = (
        subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
        for _ in range(2)
    )
    assert first.returncode == second.returncode == 0, second.stderr[-2000:]
    assert first.stdout.split() == ["0.5", "2", "True"]  # asked the server: litellm imported
    assert second.stdout.split() == ["0.5", "0", "False"]  # the cache answered: never imported


ESTIMATE = """
import sys
from evals import estimate_run
from scorers import Judge, create_context_recall_scorer

rows = [{"id": "1", "input": "q", "ground_truth": "Einstein was born in Ulm.",
         "context": ["Einstein was born in Ulm."]}]
judge = Judge("openai/gpt-4o-mini", api_key="sk-never-used", cache=False)
estimate = estimate_run(rows, [create_context_recall_scorer(judge)])
print(estimate.calls, estimate.prompt_tokens > 0, estimate.cost > 0, "litellm" in sys.modules)
"""


@pytest.mark.slow
def test_an_estimate_never_imports_litellm(tmp_path):
    script = tmp_path / "estimate.py"
    script.write_text(textwrap.dedent(ESTIMATE))
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["2", "True", "True", "False"]  # claims, then verdicts
