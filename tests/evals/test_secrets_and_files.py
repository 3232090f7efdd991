"""Secrets never reach a results file or the viewer; the viewer's token never reaches a
command line."""

from __future__ import annotations

import json
import os
import stat

from evals import run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import create_context_recall_scorer

SECRETS = ("AKIA-SECRET-VALUE-1", "AZ-TOKEN-VALUE-2", "BODY-KEY-VALUE-3", "HEADER-PASS-4")
ROW = {
    "id": "1",
    "input": "Where was Einstein born?",
    "ground_truth": "Einstein was born in Ulm.",
    "context": ["Einstein was born in Ulm."],
}


def test_judge_parameters_are_recorded_by_allow_list(tmp_path):
    from evals._view import ViewServer

    with FakeLLMServer() as server:
        judge = server.judge(
            aws_secret_access_key=SECRETS[0],
            azure_ad_token=SECRETS[1],
            extra_body={"api_key": SECRETS[2]},
            extra_headers={"X-Password": SECRETS[3]},
            max_tokens=300,
        )
        run_evals([ROW], [create_context_recall_scorer(judge)],
                  results_path=tmp_path / "r.jsonl", progress="none")  # fmt: skip
    text = (tmp_path / "r.jsonl").read_text()
    assert not [s for s in SECRETS if s in text]
    params = json.loads(text.splitlines()[0])["run"]["scorers"]["context-recall"]["judge"]["params"]
    assert params == {
        "temperature": 0.0,
        "max_tokens": 300,
        "aws_secret_access_key": "<not recorded>",
        "azure_ad_token": "<not recorded>",
        "extra_body": "<not recorded>",
        "extra_headers": {"X-Password": "<not recorded>"},
    }
    with ViewServer(tmp_path, port=0) as view:
        view.app.index.wait()
        served = json.dumps(view.app.run({"path": ["r.jsonl"]}))
    assert "r.jsonl" in served and not [s for s in SECRETS if s in served]


def test_judge_options_from_the_command_line_are_not_written(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    with FakeLLMServer() as server:
        code = main(["run", str(data), "--scorer", "context-recall", "--model", "openai/fake-judge",
                     "--api-base", server.url, "--out", str(tmp_path / "r.jsonl"), "--no-progress",
                     "--option", f"judge.aws_secret_access_key={SECRETS[0]}"])  # fmt: skip
    assert code == 0, capsys.readouterr()
    assert SECRETS[0] not in (tmp_path / "r.jsonl").read_text()
    assert SECRETS[0] not in capsys.readouterr().out


def test_open_goes_through_a_private_page_not_the_command_line(monkeypatch):
    import webbrowser

    from evals.cli._view import open_in_browser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    url = "http://127.0.0.1:8765/?token=TOKEN-abc123"
    page = open_in_browser(url)
    try:
        (asked,) = opened
        assert "TOKEN-abc123" not in asked and asked == page.as_uri()
        assert "TOKEN-abc123" in page.read_text()
        assert stat.S_IMODE(os.stat(page).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(page.parent).st_mode) == 0o700
    finally:
        page.unlink()
        page.parent.rmdir()
