"""A folder of runs as a user has one: three runs of the quickstart with an LLM judge (one
to three chunks retrieved) and a synthesized set."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import evals.quickstart as quickstart
from evals import synthesize
from evals.testing import FakeLLMServer


@pytest.fixture(scope="session")
def made_runs(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    with FakeLLMServer() as server:
        judge = server.judge()
        for k in (1, 2, 3):
            quickstart.run(judge, k=k, results_path=folder / f"k{k}.jsonl", progress="none")
        synthesize(
            [p.text for p in quickstart.passages()[:8]],
            judge,
            n=4,
            kinds=("single",),
            out=folder / "synth" / "labelled.jsonl",
            progress="none",
        )
    return folder


@pytest.fixture
def runs(made_runs, tmp_path) -> Path:
    """A fresh copy of the folder (its labels and index start empty)."""
    return Path(shutil.copytree(made_runs, tmp_path / "runs"))


class Client:
    """Requests to a running viewer, with its token unless told otherwise."""

    def __init__(self, server: Any):
        self.server = server

    def request(
        self,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        query_token: bool = False,
    ) -> tuple[int, Any]:
        token = self.server.token if token is None else token
        sent = {} if query_token else {"X-Scorekit-Token": token}
        if query_token:
            path += ("&" if "?" in path else "?") + "token=" + token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        request = urllib.request.Request(self.server.origin + path, data=data, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                raw = response.read()
                status = response.status
        except urllib.error.HTTPError as exc:
            raw, status = exc.read(), exc.code
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode("utf-8", "replace")

    def get(self, path: str, **kwargs: Any) -> Any:
        status, found = self.request(path, **kwargs)
        assert status == 200, found
        return found

    def post(self, path: str, body: Any) -> Any:
        status, found = self.request(path, body)
        assert status == 200, found
        return found


@pytest.fixture
def browser():
    from ._browser import Browser

    found = Browser()
    yield found
    found.close()
