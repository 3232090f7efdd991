"""A credential inside ``api_base`` never reaches a header, a repr, a report or a log
(issue 34, item 9)."""

from __future__ import annotations

import pytest

from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import Judge, create_context_recall_scorer
from scorers._model._redact import public_url, url_secrets

SECRET, TOKEN = "sk-userinfo-123456", "qs-token-abcdef"


def test_credentials_in_a_url_are_found_and_hidden():
    url = f"https://me:{SECRET}@proxy.example/v1?api-key={TOKEN}&region=eu"
    assert set(url_secrets(url)) == {SECRET, TOKEN}
    assert public_url(url) == "https://me:[redacted]@proxy.example/v1?api-key=[redacted]&region=eu"
    assert public_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    judge = Judge("openai/m", api_base=url, cache=False)
    assert SECRET not in repr(judge) and TOKEN not in repr(judge)
    described = str(create_context_recall_scorer(judge).describe())
    assert SECRET not in described and TOKEN not in described


@pytest.mark.slow
def test_a_run_against_a_url_with_credentials_writes_none_of_them(tmp_path, capsys):
    with FakeLLMServer() as server:
        host = server.url.removeprefix("http://")
        url = f"http://me:{SECRET}@{host}?api-key={TOKEN}"
        judge = Judge("openai/fake-judge", api_base=url, api_key="sk-fake-test-key", cache=False)
        data = [{"id": "a", "input": "q", "ground_truth": "Ulm.", "context": ["Ulm."]}]
        path = tmp_path / "r.jsonl"
        result = run_evals(data, [create_context_recall_scorer(judge)], results_path=path)
        result.to_html(tmp_path / "r.html")
    written = path.read_text() + (tmp_path / "r.html").read_text() + str(capsys.readouterr())
    assert SECRET not in written and TOKEN not in written
    assert "[redacted]" in path.read_text()
