"""`FakeLLMServer`: a real OpenAI-compatible HTTP server for tests, on 127.0.0.1.

Tests drive litellm through real HTTP against it (``model="openai/<name>"``,
``api_base=server.url``), so retries, timeouts, parsing and caching are exercised for
real. Answers come from a script (a queue), then from a handler (a function of the
request); the default handler, `rule_based_judge`, answers scorekit's own judge prompts
deterministically.

Example:
    ```python
    with FakeLLMServer(latency=0.05) as server:
        server.script(Fault.rate_limit(retry_after=0.1), '{"claims": ["a"]}')
        judge = server.judge()
    ```

It is also a pytest fixture, ``fake_llm_server``, once scorekit is installed.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scorers import Judge

__all__ = [
    "FakeLLMServer",
    "FakeRequest",
    "FakeResponse",
    "Fault",
    "fake_llm_server",
    "rule_based_judge",
]


@dataclass
class FakeRequest:
    """One request the server received.

    Attributes:
        body: The parsed JSON body.
        headers: Request headers (lower-case names).
    """

    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def model(self) -> str:
        """The requested model name."""
        return str(self.body.get("model", ""))

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages sent."""
        return list(self.body.get("messages", []))

    @property
    def prompt(self) -> str:
        """The text of the last user message."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else json.dumps(content)
        return ""

    @property
    def task_prompt(self) -> str:
        """The text of the first user message (the task, also during a repair round)."""
        for message in self.messages:
            if message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else json.dumps(content)
        return ""

    @property
    def schema_name(self) -> str | None:
        """The ``response_format`` JSON-schema name, or the schema title in the prompt."""
        fmt = self.body.get("response_format") or {}
        name = (fmt.get("json_schema") or {}).get("name")
        if name:
            return str(name)
        match = re.search(r'"title":"(\w+)","type":"object"\}\s*$', self.task_prompt)
        return match.group(1) if match else None

    @property
    def is_repair(self) -> bool:
        """Whether this is a repair round (the model's previous answer was rejected)."""
        return any(m.get("role") == "assistant" for m in self.messages) and (
            "was not valid" in self.prompt
        )


Handler = Callable[["FakeRequest"], "FakeResponse | str | dict[str, Any]"]
"""A function of the request returning the answer."""


@dataclass
class FakeResponse:
    """A scripted answer.

    Attributes:
        content: Assistant text (JSON for judge steps).
        tool_calls: Tool calls, each ``{"name": str, "arguments": dict | str, "id"?: str}``.
        status: HTTP status; non-200 sends ``error_body``.
        headers: Extra response headers (e.g. ``Retry-After``).
        delay: Seconds to wait before answering (on top of the server's latency).
        error_body: The JSON error body for non-200 statuses.
    """

    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    error_body: dict[str, Any] | None = None


class Fault:
    """Constructors for injected faults."""

    @staticmethod
    def rate_limit(retry_after: float = 0.1) -> FakeResponse:
        """HTTP 429 with a ``Retry-After`` header (seconds)."""
        return FakeResponse(
            status=429,
            headers={"Retry-After": f"{retry_after:g}"},
            error_body={"error": {"message": "rate limited", "type": "rate_limit"}},
        )

    @staticmethod
    def server_error(status: int = 500) -> FakeResponse:
        """An HTTP 5xx."""
        return FakeResponse(
            status=status, error_body={"error": {"message": "internal error", "type": "server"}}
        )

    @staticmethod
    def unauthorized() -> FakeResponse:
        """HTTP 401, as for a bad API key."""
        return FakeResponse(
            status=401,
            error_body={
                "error": {
                    "message": "Incorrect API key provided",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
        )

    @staticmethod
    def bad_request(message: str = "bad request") -> FakeResponse:
        """HTTP 400."""
        return FakeResponse(
            status=400, error_body={"error": {"message": message, "type": "invalid_request_error"}}
        )

    @staticmethod
    def hang(seconds: float = 30.0) -> FakeResponse:
        """Answer nothing for ``seconds`` (the client should time out first)."""
        return FakeResponse(content="{}", delay=seconds)

    @staticmethod
    def malformed(text: str = "Sure! Here is the JSON: {claims: [oops") -> FakeResponse:
        """A 200 whose content is not valid JSON."""
        return FakeResponse(content=text)

    @staticmethod
    def wrong_verdict_count(drop: int = 1) -> Handler:
        """The rule-based judge's answer with the last ``drop`` verdicts removed.

        A script entry that is a function is called with the request, so this can stand
        in any position of a script.
        """

        def answer(request: FakeRequest) -> FakeResponse:
            data = json.loads(rule_based_judge(request).content or "{}")
            if isinstance(data.get("verdicts"), list):
                data["verdicts"] = data["verdicts"][: max(0, len(data["verdicts"]) - drop)]
            return FakeResponse(json.dumps(data))

        return answer

    @staticmethod
    def truncated(valid_json: str) -> FakeResponse:
        """A 200 whose JSON content is cut in half."""
        return FakeResponse(content=valid_json[: max(1, len(valid_json) // 2)])


_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the of in on at to for by with and or is are was were be been it its this that "
    "as from which who whom".split()
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def _tagged(tag: str, prompt: str) -> list[str]:
    return [m.strip() for m in re.findall(rf'<{tag} index="\d+">\n(.*?)\n</{tag}>', prompt, re.S)]


def _block(tag: str, prompt: str) -> str | None:
    match = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", prompt, re.S)
    return match.group(1) if match else None


def supports(evidence: str, statement: str, threshold: float = 0.6) -> bool:
    """The rule the fake judge uses: at least ``threshold`` of the statement's content
    words occur in the evidence."""
    wanted = _words(statement)
    return bool(wanted) and len(wanted & _words(evidence)) / len(wanted) >= threshold


def rule_based_judge(request: FakeRequest) -> FakeResponse:
    """Answer scorekit's judge prompts deterministically, without a model.

    - ``Claims``: one claim per sentence of the ``<answer>``.
    - ``ClaimVerdicts``: "yes" when one chunk contains ≥ 60% of the claim's content words.
    - ``ChunkVerdicts``: "yes" when the chunk supports some sentence of the reference.
    - ``Reason``: a fixed sentence.
    """
    prompt = request.task_prompt
    name = request.schema_name
    if name == "Claims":
        return FakeResponse(json.dumps({"claims": _sentences(_block("answer", prompt) or "")}))
    if name == "ClaimVerdicts":
        chunks, claims = _tagged("chunk", prompt), _tagged("claim", prompt)
        verdicts = [
            {
                "claim_index": i,
                "verdict": "yes" if any(supports(c, claim) for c in chunks) else "no",
                "reason": "word overlap with a chunk"
                if any(supports(c, claim) for c in chunks)
                else "no chunk states it",
            }
            for i, claim in enumerate(claims)
        ]
        return FakeResponse(json.dumps({"verdicts": verdicts}))
    if name == "ChunkVerdicts":
        reference = _block("ground_truth", prompt) or _block("answer", prompt) or ""
        chunks = _tagged("chunk", prompt)
        offset_match = re.search(r'<chunk index="(\d+)">', prompt)
        offset = int(offset_match.group(1)) if offset_match else 0
        verdicts = []
        for i, chunk in enumerate(chunks):
            useful = any(supports(chunk, s) for s in _sentences(reference))
            verdicts.append(
                {
                    "context_index": offset + i,
                    "verdict": "yes" if useful else "no",
                    "reason": "states part of the reference"
                    if useful
                    else "unrelated to the reference",
                }
            )
        return FakeResponse(json.dumps({"verdicts": verdicts}))
    if name == "Reason":
        return FakeResponse(json.dumps({"reason": "rule-based fake judge reason"}))
    return FakeResponse(json.dumps({"answer": "fake"}))


def _token_count(text: str) -> int:
    return len(text.split())


class _HTTPHandler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    # headers and body go out in two writes; with Nagle's algorithm on, the client's
    # delayed ACK would hold the body back ~40 ms on every answer
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]}, {})

    def do_POST(self) -> None:
        fake = self.server.fake
        with fake._lock:
            fake.in_flight += 1
            fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
        try:
            self._post(fake)
        finally:
            with fake._lock:
                fake.in_flight -= 1

    def _post(self, fake: FakeLLMServer) -> None:
        arrived = time.monotonic()
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "invalid JSON body"}}, {})
            return
        if not self.path.rstrip("/").endswith("chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}}, {})
            return
        request = FakeRequest(body=body, headers={k.lower(): v for k, v in self.headers.items()})
        response = fake._answer(request)
        # latency counts from the request's arrival, so the fake's own parsing and
        # judging (slower when many requests arrive together) stays inside it
        wait = fake.latency - (time.monotonic() - arrived) + response.delay
        if wait > 0 and fake._stopping.wait(wait):
            return
        if response.status != 200:
            self._send(
                response.status,
                response.error_body or {"error": {"message": "error"}},
                response.headers,
            )
            return
        message: dict[str, Any] = {"role": "assistant", "content": response.content}
        finish = "stop"
        if response.tool_calls:
            finish = "tool_calls"
            message["tool_calls"] = [
                {
                    "id": call.get("id") or f"call_{fake.call_count}_{i}",
                    "type": "function",
                    "function": {
                        "name": call["name"],
                        "arguments": call["arguments"]
                        if isinstance(call["arguments"], str)
                        else json.dumps(call["arguments"]),
                    },
                }
                for i, call in enumerate(response.tool_calls)
            ]
        prompt_tokens = sum(_token_count(str(m.get("content") or "")) for m in request.messages)
        completion_tokens = _token_count(response.content or "") + 5 * len(
            response.tool_calls or []
        )
        with fake._lock:
            fake.prompt_tokens += prompt_tokens
            fake.completion_tokens += completion_tokens
        self._send(
            200,
            {
                "id": f"chatcmpl-fake-{fake.call_count}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
            response.headers,
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    fake: FakeLLMServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away (it timed out, or its process was killed)
        super().handle_error(request, client_address)


class FakeLLMServer:
    """An OpenAI-compatible chat-completions server on 127.0.0.1 (random port).

    Args:
        handler: ``fn(FakeRequest) -> FakeResponse | str | dict``; a str is the content, a
            dict is sent as JSON content. Defaults to `rule_based_judge`.
        latency: Seconds from a request's arrival to its answer (the fake's own work
            counts inside it, as a remote judge's does).

    Attributes:
        requests: Every request received, in order.
        prompt_tokens: Prompt tokens "used" (whitespace words of the messages).
        completion_tokens: Completion tokens "used".
        in_flight: Requests being answered right now.
        max_in_flight: The most requests it was answering at once (since `reset`).
    """

    def __init__(self, handler: Handler | None = None, *, latency: float = 0.0):
        self.handler: Handler = handler or rule_based_judge
        self.latency = latency
        self.requests: list[FakeRequest] = []
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._queue: deque[FakeResponse | str | dict[str, Any] | Handler] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def call_count(self) -> int:
        """Requests received so far."""
        return len(self.requests)

    @property
    def url(self) -> str:
        """The base URL to give litellm as ``api_base``."""
        if self._server is None:
            raise RuntimeError("FakeLLMServer is not running; use it as a context manager")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *responses: FakeResponse | str | dict[str, Any] | Handler) -> FakeLLMServer:
        """Queue answers; each request takes the next one before the handler is asked.

        An entry may be a function of the request (e.g. `rule_based_judge` to pass one
        request through, or `Fault.wrong_verdict_count`)."""
        with self._lock:
            self._queue.extend(responses)
        return self

    def reset(self) -> None:
        """Forget requests, counters and queued answers."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self.prompt_tokens = self.completion_tokens = 0
            self.max_in_flight = self.in_flight

    def judge(self, model: str = "openai/fake-judge", **kwargs: Any) -> Judge:
        """A `Judge` pointed at this server (cache off and fast retries unless overridden)."""
        kwargs.setdefault("api_key", "sk-fake-test-key")
        kwargs.setdefault("cache", False)
        kwargs.setdefault("retry_backoff", 0.01)
        return Judge(model, api_base=self.url, **kwargs)

    def _answer(self, request: FakeRequest) -> FakeResponse:
        with self._lock:
            self.requests.append(request)
            scripted = self._queue.popleft() if self._queue else None
        if scripted is None:
            answer = self.handler(request)
        elif callable(scripted):
            answer = scripted(request)
        else:
            answer = scripted
        if isinstance(answer, FakeResponse):
            return answer
        if isinstance(answer, dict):
            return FakeResponse(content=json.dumps(answer))
        return FakeResponse(content=str(answer))

    def start(self) -> FakeLLMServer:
        """Start serving in a background thread."""
        if self._server is None:
            self._stopping.clear()
            self._server = _Server(("127.0.0.1", 0), _HTTPHandler)
            self._server.fake = self
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                name="fake-llm-server",
                daemon=True,
                kwargs={"poll_interval": 0.05},
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging answers are abandoned."""
        if self._server is not None:
            self._stopping.set()
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


try:
    import pytest
except ImportError:  # pragma: no cover - pytest is only needed for the fixture
    pass
else:

    @pytest.fixture
    def fake_llm_server() -> Iterator[FakeLLMServer]:
        """A running `FakeLLMServer` with the rule-based judge, stopped after the test."""
        with FakeLLMServer() as server:
            yield server


def _serve(argv: list[str] | None = None) -> None:
    """``python -m evals.testing --latency 0.2``: serve the rule-based judge until killed,
    printing the base URL on the first line (used by the benchmarks)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m evals.testing")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args(argv)
    with FakeLLMServer(latency=args.latency) as server:
        print(server.url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":  # pragma: no cover
    _serve()
