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


def for_cli(message: str) -> str:
    """``message`` with Python spellings of options replaced by the CLI's flags."""
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
