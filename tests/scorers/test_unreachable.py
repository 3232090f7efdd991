"""A judge that cannot reach its server says so, and stops the run as a setup error
while no call of it has ever been answered (issue 34, item 13)."""

from __future__ import annotations

import socket

import pytest

from evals import run_evals
from evals.cli import main
from scorers import (
    Completion,
    Judge,
    JudgeAPIError,
    JudgeSetupError,
    ScriptedTransport,
    TransportError,
    create_context_recall_scorer,
)

DATA = [
    {"id": f"q{i}", "input": "q", "ground_truth": "Ulm.", "context": ["Ulm."]} for i in range(4)
]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_wrong_port_is_connection_refused_and_a_setup_error(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text('{"input": "q", "ground_truth": "Ulm.", "context": ["Ulm."]}\n')
    url = f"http://127.0.0.1:{closed_port()}/v1"
    args = ["run", str(data), "--scorer", "context-recall", "--model", "openai/m",
            "--api-base", url, "--option", "judge.retry_backoff=0.01", "--no-progress"]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"connection refused at {url}" in err and "HTTP 500" not in err
    assert "Check api_base" in err


def test_a_refusal_after_answers_is_an_item_error_not_a_setup_error():
    answers = [
        '{"claims": ["Ulm."]}',
        '{"verdicts": [{"claim_index": 0, "verdict": "yes", "reason": "stated"}]}',
    ]

    def flaky(request):  # answers the first item's two calls, then the server is gone
        if not answers:
            raise TransportError("connection", "connection refused at http://x")
        return Completion(content=answers.pop(0))

    judge = Judge("openai/m", transport=ScriptedTransport(flaky), cache=False, max_retries=0)
    result = run_evals(DATA, [create_context_recall_scorer(judge)], concurrency=1, progress=False)
    assert result.summary.item_errors == 3  # the first item's two calls were answered
    assert "connection refused" in result.items[1].error.message

    never = Judge(
        "openai/m",
        transport=ScriptedTransport(lambda r: TransportError("connection", "refused")),
        cache=False,
        max_retries=0,
    )
    with pytest.raises(JudgeSetupError):
        run_evals(DATA, [create_context_recall_scorer(never)], progress=False)
    assert issubclass(JudgeSetupError, JudgeAPIError)
