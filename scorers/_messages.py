"""Agent message histories: OpenAI chat format and Mastra-style messages."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._types import AgentOutput, Chunk


@dataclass(frozen=True)
class ToolResult:
    """One tool result found in a message history."""

    tool_name: str
    result: Any
    call_id: str | None = None
    args: Any = None


def as_history(value: Any) -> list[dict[str, Any]] | None:
    """The message list inside ``value``, or None when it is not a message history.

    Accepts an `AgentOutput`, a list of message dicts (each with a ``role``), a dict
    with a ``messages`` list, or Mastra's agent-run input (``inputMessages`` after the
    ``rememberedMessages``; system messages left out).
    """
    if isinstance(value, AgentOutput):
        return value.messages
    if isinstance(value, Mapping):
        if isinstance(value.get("messages"), list):
            value = value["messages"]
        elif isinstance(value.get("inputMessages"), list):
            remembered = value.get("rememberedMessages")
            value = [*(remembered if isinstance(remembered, list) else []), *value["inputMessages"]]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(m, Mapping) and "role" in m for m in value)
    ):
        return [dict(m) for m in value]
    return None


def is_agent_shaped(value: Any) -> bool:
    """Whether ``value`` is an agent run's input or output, which is when the context
    extractor is used where a static context is given too.

    Mastra's shapes follow Mastra: its agent-run input only whole (``inputMessages``,
    ``rememberedMessages``, ``systemMessages`` lists and a ``taggedSystemMessages``
    mapping), its output a list of messages, an empty one included. scorekit also takes
    an `AgentOutput`, an OpenAI-format message list and a dict with a ``messages`` list.
    """
    if isinstance(value, Mapping) and "inputMessages" in value:
        return _is_mastra_agent_input(value)
    if isinstance(value, list) and not value:
        return True  # an agent that answered nothing (Mastra: an empty output list)
    return as_history(value) is not None


def _is_mastra_agent_input(value: Mapping[str, Any]) -> bool:
    lists = ("inputMessages", "rememberedMessages", "systemMessages")
    return all(isinstance(value.get(k), list) for k in lists) and isinstance(
        value.get("taggedSystemMessages"), Mapping
    )


def message_text(message: Mapping[str, Any]) -> str:
    """The plain text of one message in either format."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts: Any = content
    if isinstance(content, Mapping):
        if isinstance(content.get("content"), str):
            return str(content["content"])
        parts = content.get("parts", [])
    if isinstance(parts, list):
        texts = [
            str(p.get("text", ""))
            for p in parts
            if isinstance(p, Mapping) and p.get("type") == "text"
        ]
        return "\n".join(t for t in texts if t)
    return ""


def history_final_text(value: Any) -> str:
    """The last assistant text of a history, or ``str(value)`` for plain values (the
    public `scorers.final_text` reads every result shape)."""
    if isinstance(value, AgentOutput):
        return value.text
    history = as_history(value)
    if history is None:
        return (
            "" if value is None or (isinstance(value, (list, dict)) and not value) else str(value)
        )
    for message in reversed(history):
        if message.get("role") == "assistant":
            text = message_text(message)
            if text:
                return text
    return ""


def _framework_question(value: Any) -> str | None:
    """The question inside a framework's objects: a LangChain / LangGraph ``human``
    message, a PydanticAI ``user-prompt`` part, an Agents SDK result's ``input``."""
    messages = value.get("messages") if isinstance(value, Mapping) else value
    if hasattr(value, "all_messages"):
        messages = value.all_messages()
    if isinstance(messages, list):
        for message in reversed(messages):
            if getattr(message, "type", None) == "human":
                return str(message.content)
            for part in reversed(getattr(message, "parts", None) or []):
                if getattr(part, "part_kind", None) == "user-prompt":
                    return str(part.content)
    found = getattr(value, "input", None)
    return found if isinstance(found, str) and hasattr(value, "new_items") else None


def question_text(value: Any) -> str:
    """The user's question: the last user message of a history, the question inside a
    framework's objects, or ``str(value)``."""
    history = None if isinstance(value, AgentOutput) else as_history(value)
    if history is None:
        found = None if isinstance(value, str) or value is None else _framework_question(value)
        if found is not None:
            return found
        return "" if value is None else str(value)
    for message in reversed(history):
        if message.get("role") == "user":
            return message_text(message)
    return ""


def tool_results(value: Any) -> list[ToolResult]:
    """Every tool result in a history, in order, deduplicated by tool-call id."""
    history = as_history(value) or []
    names: dict[str, tuple[str, Any]] = {}
    found: list[ToolResult] = []
    seen: set[str] = set()

    def add(result: ToolResult) -> None:
        if result.call_id is not None:
            if result.call_id in seen:
                return
            seen.add(result.call_id)
        found.append(result)

    for message in history:
        role = message.get("role")
        for call in message.get("tool_calls") or []:  # OpenAI assistant tool calls
            function = call.get("function", {}) if isinstance(call, Mapping) else {}
            names[str(call.get("id"))] = (function.get("name", ""), function.get("arguments"))
        if role == "tool":  # OpenAI tool result
            call_id = message.get("tool_call_id")
            name, args = names.get(str(call_id), (message.get("name", ""), None))
            add(
                ToolResult(
                    name or str(message.get("name", "")),
                    message.get("content"),
                    None if call_id is None else str(call_id),
                    args,
                )
            )
            continue
        content = message.get("content")
        invocations: list[Any] = []
        if isinstance(content, Mapping):  # Mastra v2: content.parts / content.toolInvocations
            for part in content.get("parts") or []:
                if isinstance(part, Mapping) and isinstance(part.get("toolInvocation"), Mapping):
                    invocations.append(part["toolInvocation"])
            invocations.extend(content.get("toolInvocations") or [])
        elif isinstance(content, list):  # Mastra v1 / AI SDK parts at the top level
            for part in content:
                if isinstance(part, Mapping) and isinstance(part.get("toolInvocation"), Mapping):
                    invocations.append(part["toolInvocation"])
                elif isinstance(part, Mapping) and part.get("type") == "tool-result":
                    invocations.append({**part, "state": "result"})
        invocations.extend(message.get("toolInvocations") or [])
        for inv in invocations:  # a call still running (no result yet) is not a result
            if isinstance(inv, Mapping) and inv.get("state") == "result" and "result" in inv:
                call_id = inv.get("toolCallId")
                add(
                    ToolResult(
                        str(inv.get("toolName", "")),
                        inv.get("result"),
                        None if call_id is None else str(call_id),
                        inv.get("args"),
                    )
                )
    return found


def tool_chunks(value: Any, names: frozenset[str] = frozenset()) -> list[Chunk]:
    """The chunks of every tool result in a history (of the named tools, when named)."""
    return [
        chunk
        for result in tool_results(value)
        if not names or result.tool_name in names
        for chunk in result_chunks(result.result)
    ]


_LIST_KEYS = ("results", "documents", "docs", "chunks", "contexts", "passages", "items", "hits")
_TEXT_KEYS = ("text", "content", "page_content", "passage", "snippet", "body")


def result_chunks(result: Any) -> list[Chunk]:
    """Turn one tool result into chunks.

    JSON strings are parsed first. A list gives one chunk per element; a dict holding a
    list under ``results``/``documents``/``chunks``/... is unwrapped; dicts with a text
    field keep their ``id``; anything else becomes one chunk of its JSON or string form.
    """
    if isinstance(result, str):
        try:
            parsed = json.loads(result)
        except ValueError:
            return [Chunk(text=result)] if result.strip() else []
        if isinstance(parsed, (list, dict)):
            return result_chunks(parsed)
        return [Chunk(text=result)]
    if isinstance(result, list):
        return [chunk for item in result for chunk in result_chunks(item)]
    if isinstance(result, Mapping):
        for key in _LIST_KEYS:
            if isinstance(result.get(key), list):
                return result_chunks(result[key])
        text_key = next((k for k in _TEXT_KEYS if isinstance(result.get(k), str)), None)
        if text_key is not None:
            chunk_id = next(
                (result[k] for k in ("id", "doc_id", "chunk_id", "document_id") if k in result),
                None,
            )
            metadata = {k: v for k, v in result.items() if k != text_key and k != "id"}
            return [Chunk(id=chunk_id, text=result[text_key], metadata=metadata)]
        return [Chunk(text=json.dumps(result, ensure_ascii=False, default=str))]
    if result is None:
        return []
    return [Chunk(text=str(result))]
