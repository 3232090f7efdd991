"""`FakeLLMServer`: the OpenAI-compatible HTTP server itself."""

from __future__ import annotations

import hashlib
import json
import math
import sys
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scorers import Judge

from ._exchange import FakeRequest, FakeResponse, Handler
from ._rule_judge import rule_based_judge


def _token_count(text: str) -> int:
    return len(text.split())


EMBEDDING_DIMENSIONS = 64


def embedding(text: str) -> list[float]:
    """A deterministic unit vector of ``text``: its lower-cased words hashed into
    `EMBEDDING_DIMENSIONS` buckets (texts sharing words point the same way)."""
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in text.lower().split():
        digest = hashlib.blake2b(word.strip(".,;:!?()\"'").encode(), digest_size=4).digest()
        vector[int.from_bytes(digest, "little") % EMBEDDING_DIMENSIONS] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def embeddings_answer(body: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI ``/embeddings`` answer for a request body (``input``: a text or texts)."""
    texts = body.get("input") or []
    texts = [texts] if isinstance(texts, str) else texts
    data = [
        {"object": "embedding", "index": i, "embedding": embedding(str(t))}
        for i, t in enumerate(texts)
    ]
    tokens = sum(_token_count(str(t)) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", "fake-embedding"),
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }


def _message(response: FakeResponse, serial: int) -> dict[str, Any]:
    """The assistant message of a scripted 200 answer."""
    message: dict[str, Any] = {"role": "assistant", "content": response.content}
    if response.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.get("id") or f"call_{serial}_{i}",
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
    return message


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
        if self.path.rstrip("/").endswith("/embeddings"):
            with fake._lock:
                fake.embedding_requests += 1
            self._send(200, embeddings_answer(body), {})
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
        message = _message(response, fake.call_count)
        finish = "tool_calls" if response.tool_calls else "stop"
        prompt_tokens = sum(_token_count(str(m.get("content") or "")) for m in request.messages)
        completion_tokens = _token_count(response.content or "") + 5 * len(
            response.tool_calls or []
        )
        with fake._lock:
            fake.prompt_tokens += prompt_tokens
            fake.completion_tokens += completion_tokens
        completion = {
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
        }
        if body.get("stream"):
            self._send_stream(completion, response.headers)
        else:
            self._send(200, completion, response.headers)

    def _send_stream(self, completion: dict[str, Any], headers: dict[str, str]) -> None:
        """The answer as OpenAI's server-sent events (``stream: true``, as the AI SDK and
        Mastra ask): the message in one delta, the finish reason, the usage, ``[DONE]``."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        (choice,) = completion["choices"]
        message = choice["message"]
        delta: dict[str, Any] = {"role": "assistant", "content": message.get("content") or ""}
        if message.get("tool_calls"):
            delta["tool_calls"] = [{**c, "index": i} for i, c in enumerate(message["tool_calls"])]
        head = {k: completion[k] for k in ("id", "created", "model")}
        head["object"] = "chat.completion.chunk"
        for chunk in (
            {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {
                **head,
                "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}],
            },
            {**head, "choices": [], "usage": completion["usage"]},
        ):
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.close_connection = True


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
        port: The port to listen on (0: a free one). A fixed port keeps ``url`` — part of
            a judge's cache key — the same from one process to the next.

    Attributes:
        requests: Every request received, in order.
        prompt_tokens: Prompt tokens "used" (whitespace words of the messages).
        completion_tokens: Completion tokens "used".
        embedding_requests: ``/embeddings`` requests answered (deterministic hashed
            bag-of-words vectors, `embedding`), for peers that embed text (Ragas' test
            set generator); they are not in ``requests``.
        in_flight: Requests being answered right now.
        max_in_flight: The most requests it was answering at once (since `reset`).
    """

    def __init__(self, handler: Handler | None = None, *, latency: float = 0.0, port: int = 0):
        self.handler: Handler = handler or rule_based_judge
        self.port = port
        self.latency = latency
        self.requests: list[FakeRequest] = []
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.embedding_requests = 0
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
            self._server = _Server(("127.0.0.1", self.port), _HTTPHandler)
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
