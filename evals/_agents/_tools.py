"""`Tool`: a Python function an agent's model may call, with its JSON schema."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from typing import Any

import anyio
from pydantic import BaseModel, Field, ValidationError, create_model

from scorers import ConfigError


def _arg_docs(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google-style ``Args:`` section."""
    match = re.search(r"^\s*Args:\s*$(.*?)(^\s*\w+:\s*$|\Z)", doc, re.M | re.S)
    if not match:
        return {}
    found: dict[str, str] = {}
    for line in match.group(1).splitlines():
        item = re.match(r"\s+(\w+)(?:\s*\(.*?\))?:\s*(.+)", line)
        if item:
            found[item.group(1)] = item.group(2).strip()
    return found


class Tool:
    """A Python function exposed to the model; its hints and docstring are the schema.

    Args:
        fn: A sync or async function with type-hinted parameters.
    """

    def __init__(self, fn: Callable[..., Any]):
        if not callable(fn):
            raise ConfigError(f"a tool must be a function, got {type(fn).__name__}")
        self.fn = fn
        self.name = getattr(fn, "__name__", "tool")
        doc = inspect.getdoc(fn) or ""
        self.description = doc.split("\n\n")[0].strip() or self.name
        descriptions = _arg_docs(doc)
        fields: dict[str, Any] = {}
        hints = inspect.get_annotations(fn, eval_str=True) if inspect.isfunction(fn) else {}
        for param in inspect.signature(fn).parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            annotation = hints.get(param.name, Any)
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (
                annotation,
                Field(default, description=descriptions.get(param.name)),
            )
        self.arguments_model: type[BaseModel] = create_model(f"{self.name}_arguments", **fields)

    def schema(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry."""
        parameters = self.arguments_model.model_json_schema()
        parameters.pop("title", None)
        for prop in parameters.get("properties", {}).values():
            prop.pop("title", None)
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }

    async def call(self, arguments: str | None) -> str:
        """Run the tool on the model's JSON arguments; errors come back as text."""
        try:
            raw = json.loads(arguments or "{}")
            parsed = self.arguments_model.model_validate(raw)
        except (ValueError, ValidationError) as exc:
            return json.dumps({"error": f"invalid arguments for {self.name}: {exc}"})
        kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        try:
            if inspect.iscoroutinefunction(self.fn):
                value = await self.fn(**kwargs)
            else:
                value = await anyio.to_thread.run_sync(lambda: self.fn(**kwargs))
        except Exception as exc:
            return json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        if isinstance(value, str):
            return value
        if isinstance(value, BaseModel):
            return value.model_dump_json()
        return json.dumps(value, default=str, ensure_ascii=False)


# --- the agent --------------------------------------------------------------------------
