"""Messages in the caller's words: the Python spelling of an option becomes its flag.

Errors raised by `scorers` and `evals` name Python keywords (``Judge(timeout=...)``,
``resume=True``); a user of ``scorekit`` needs the flag that sets the same thing.
"""

from __future__ import annotations

import re

_FLAGS = {
    "model": "--model",
    "api_base": "--api-base",
    "client_processes": "--client-processes",
}

_RUN_KEYWORDS = re.compile(r"\b(max_cost|item_timeout|min_scored|results_path)\b")
_RUN_FLAGS = {
    "max_cost": "--max-cost",
    "item_timeout": "--item-timeout",
    "min_scored": "--min-scored",
    "results_path": "--out",
}
_MANY = re.compile(r"Judge\(\.\.\., ([^)]*)\)")
_ONE = re.compile(r"Judge\((\w+)=([^)]*)\)")


def _judge_option(key: str, value: str) -> str:
    flag = _FLAGS.get(key)
    if flag is not None:
        return f"{flag} {value}"
    return f"--option judge.{key}={value}"


PHRASES = {
    "pass context=[...] to run(), or give the scorer options={'context': [...]} or "
    "{'context_extractor': 'auto'} (or a function or registered name) to read it from "
    "the output": "give each item a 'context' field, or a --target whose result carries "
    "one (--option SCORER.context_extractor=NAME reads another shape)",
    "pass context as {'id': ..., 'text': ...} dicts or Chunk(id=...)": "give each chunk in "
    '\'context\' an id ({"id": ..., "text": ...})',
    "from your pipeline, pass context_extractor=fn (or a name registered with "
    "scorers.register_context_extractor), or give the run context=[...]": "from your "
    "--target, or pass --option SCORER.context_extractor=NAME (a name that an --import "
    "module registers with scorers.register_context_extractor)",
}
"""Whole phrases of Python advice and what a command-line user does instead (each key is
found in a message of `scorers` or `evals`: a test holds that)."""


def for_cli(message: str) -> str:
    """``message`` with Python spellings of options replaced by the CLI's flags."""
    for python, cli in PHRASES.items():
        message = message.replace(python, cli)
    message = re.sub(r"\((\w+=[^,()]+), CLI: ([^)]+)\)", r"(\2)", message)
    message = re.sub(r"\S+ \(CLI: ([^)]+)\)", r"\1", message)
    message = _MANY.sub(
        lambda m: " ".join(
            _judge_option(*part.split("=", 1)) for part in m.group(1).split(", ") if "=" in part
        ),
        message,
    )
    message = _ONE.sub(lambda m: _judge_option(m.group(1), m.group(2)), message)
    return _RUN_KEYWORDS.sub(lambda m: _RUN_FLAGS[m.group(1)], message)
