"""`Judge`'s settings are declared once (`JudgeSettings`): its signature, its docstring,
its attributes and its checks all come from, or are held to, the declaration."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest

from scorers import ConfigError, Judge
from scorers._model._settings import JudgeSettings


def test_the_signature_docstring_and_attributes_hold_every_declared_setting():
    declared = {f.name: f.default for f in fields(JudgeSettings)}
    params = inspect.signature(Judge.__init__).parameters
    keyword = {n: p.default for n, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert keyword == declared, "Judge.__init__'s keywords must be JudgeSettings' fields"
    for name in declared:
        assert f"\n        {name}: " in (Judge.__doc__ or ""), name
    judge = Judge("openai/x", cache=False, timeout=5, max_retries=2.0, top_p=0.5)
    plain = set(declared) - {"api_key", "cache", "transport", "litellm_kwargs"}
    assert all(hasattr(judge, name) for name in plain)
    assert (judge.timeout, judge.max_retries, judge.top_p) == (5.0, 2, 0.5)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"timeout": "5"}, r"Judge\(timeout=\.\.\.\) must be a finite number > 0; got '5'"),
        ({"top_p": 1.5}, r"Judge\(top_p=\.\.\.\) must be a finite number > 0 and <= 1"),
        ({"seed": 1.5}, r"Judge\(seed=\.\.\.\) must be an integer"),
        ({"max_retries": -1}, r"Judge\(max_retries=\.\.\.\) must be an integer >= 0"),
        ({"max_retries": None}, r"Judge\(max_retries=\.\.\.\) must be an integer >= 0"),
        ({"client_processes": None}, r"Judge\(client_processes=\.\.\.\) must be an integer"),
        ({"tokens_per_minute": 0}, r"Judge\(tokens_per_minute=\.\.\.\) must be"),
        ({"structured_output": "xml"}, "structured_output must be 'json_schema'"),
    ],
)
def test_each_setting_is_checked_by_its_declaration(given, message):
    with pytest.raises(ConfigError, match=message):
        Judge("openai/x", cache=False, **given)
