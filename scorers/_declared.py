"""Options declared once: a dataclass field per option carries its default, what it
means and how it is checked; a signature's docstring ``Args:`` and its checks are made
from the fields (`Judge`'s settings, `evals.run_evals`' options), and a test holds each
signature to its fields."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import field, fields
from typing import Any

Check = Callable[[str, Any], Any]
"""``check(label, value)``: the value checked (and converted), or `ConfigError`."""


def declared(default: Any, doc: str, *, check: Check | None = None, **meta: Any) -> Any:
    """One option: its default, what it means (docstrings, the docs), how it is checked
    (None: taken as given), and whatever else its users read (``meta``)."""
    return field(default=default, metadata={"doc": doc, "check": check, **meta})


def bounded(check: Callable[..., Any], **bounds: Any) -> Check:
    """``check`` with ``bounds`` (``minimum=0``...) given."""
    return lambda label, value: check(label, value, **bounds)


def optional(check: Callable[..., Any], **bounds: Any) -> Check:
    """``check`` (with ``bounds``: ``minimum=0``...) for a value that may also be None."""
    return lambda label, value: None if value is None else check(label, value, **bounds)


def names(cls: Any) -> tuple[str, ...]:
    """The options of the dataclass ``cls``, in their order."""
    return tuple(f.name for f in fields(cls))


def args_doc(cls: Any, indent: str = "        ") -> str:
    """The options of ``cls`` as Google-style ``Args:`` lines."""
    lines = []
    for f in fields(cls):
        text = textwrap.fill(f"{f.name}: {f.metadata['doc']}", 88 - len(indent))
        lines.append(textwrap.indent(text, indent + "    ")[4:])
    return "\n".join(lines)


def checked(cls: Any, label: Callable[[str], str], given: dict[str, Any]) -> dict[str, Any]:
    """``given`` with each option's check applied (``label(name)`` names it in errors)."""
    out = dict(given)
    for f in fields(cls):
        check = f.metadata["check"]
        if check is not None and f.name in out:
            out[f.name] = check(label(f.name), out[f.name])
    return out
