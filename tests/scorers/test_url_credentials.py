"""A credential inside ``api_base`` never reaches a header, a repr, a report or a log
(issue 34, item 9)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import Judge, create_context_recall_scorer
from scorers._model._redact import public_url, url_secrets
from tests.scorers.test_telemetry import SETUP

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


ENCODED = {
    "plus": ("https://host/v1?api-key=abc+defgh", ["abc+defgh", "abc defgh"]),
    "percent": ("https://host/v1?token=SEC%2DRET3", ["SEC%2DRET3", "SEC-RET3"]),
    "lower-case escape": ("https://host/v1?token=SEC%2dRET3", ["SEC%2dRET3", "SEC-RET3"]),
    "mixed-case name": ("https://host/v1?API-Key=Zz9%2Fyy8", ["Zz9%2Fyy8", "Zz9/yy8"]),
    "repeated key": ("https://host/v1?key=first1&key=second2", ["first1", "second2"]),
    "fragment": ("https://host/v1#access_token=frag%2Bment", ["frag%2Bment", "frag+ment"]),
    "userinfo %40": ("https://me:p%40ssword9@host/v1", ["p%40ssword9", "p@ssword9"]),
}


@pytest.mark.parametrize("name", sorted(ENCODED))
def test_every_spelling_of_a_url_secret_is_hidden(name):
    url, spellings = ENCODED[name]
    judge = Judge("openai/x", api_base=url, cache=False)
    scorer = create_context_recall_scorer(judge)
    shown = repr(judge) + str(judge.identity()) + str(scorer.describe()) + str(public_url(url))
    for spelling in spellings:
        assert spelling in url_secrets(url)
        assert spelling not in shown, (spelling, shown)
        assert spelling not in judge._redact(f"error from {url}: {spelling}")
    assert "[redacted]" in repr(judge)


LEAKS = """
import json, sys
{SETUP}
from evals import run_evals, synthesize
from evals.testing import Fault, FakeLLMServer
from scorers import Judge, JudgeSetupError, create_context_recall_scorer

url_tail = sys.argv[1]
out = []
with FakeLLMServer(lambda request: Fault.unauthorized()) as server:
    judge = Judge("openai/fake-judge", api_base=server.url + url_tail, api_key="sk-x", cache=False)
    data = [{"id": "a", "input": "q", "ground_truth": "Ulm.", "context": ["Ulm."]}]
    for call in (
        lambda: run_evals(data, [create_context_recall_scorer(judge)], progress=False,
                          results_path=sys.argv[2]),
        lambda: synthesize(["Albert Einstein was born in Ulm in the German Empire in 1879."],
                           judge, n=1, progress=False),
    ):
        try:
            call()
        except JudgeSetupError as error:
            out.append(str(error))
for span in exporter.get_finished_spans():
    out.append(str(span.status.description))
    out += [json.dumps(dict(e.attributes), default=str) for e in span.events]
print(json.dumps(out))
""".replace("{SETUP}", SETUP)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["plus", "percent", "fragment"])
def test_setup_errors_headers_and_spans_never_show_an_encoded_secret(name, tmp_path):
    pytest.importorskip("opentelemetry.sdk", reason="pip install opentelemetry-sdk")
    url, spellings = ENCODED[name]
    tail = url.removeprefix("https://host")
    results = tmp_path / "r.jsonl"
    proc = subprocess.run(
        [sys.executable, "-c", LEAKS, tail, str(results)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len([s for s in shown if "401" in s or "API key" in s]) >= 2, shown
    written = "\n".join(shown) + results.read_text() + proc.stderr
    for spelling in spellings:
        assert spelling not in written, spelling
