"""What the fake server receives and sends: `FakeRequest`, `FakeResponse`, `Fault`."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


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
        """The text of the last user message (a list of content parts: its text parts,
        one per line, as the AI SDK and Mastra send them)."""
        for message in reversed(self.messages):
            if message.get("role") == "user":
                return _text(message.get("content"))
        return ""

    @property
    def task_prompt(self) -> str:
        """The text of the first user message (the task, also during a repair round)."""
        for message in self.messages:
            if message.get("role") == "user":
                return _text(message.get("content"))
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


def _text(content: Any) -> str:
    """A message's content as text: a string as it is, a list of parts as its text parts
    joined by newlines (anything else as JSON)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        return "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
    return json.dumps(content)
