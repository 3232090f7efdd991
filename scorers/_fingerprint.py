"""A scorer's fingerprint: a short hash of everything that can change its scores.

Resume compares fingerprints so that results of an earlier configuration (another judge,
temperature, scale, option or prompt version) are never kept as if they were this run's.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from ._model._redact import recorded_params
from ._model._structured import json_schema
from ._steps import PromptStep

if TYPE_CHECKING:
    from ._model._judge import Judge


def _name(fn: Any) -> str:
    """A function's stable name (module and qualified name; code changes are invisible)."""
    module = getattr(fn, "__module__", None) or type(fn).__module__
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{qualname}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        value = {k: getattr(value, k) for k in type(value).model_fields}
    return to_jsonable_python(value, fallback=lambda v: _name(v) if callable(v) else repr(v))


def _judge(judge: Judge | str | None) -> Any:
    if judge is None or isinstance(judge, str):
        return judge
    return judge.identity()


def _recorded_judge(judge: Judge | str | None) -> Any:
    """What a results file shows of a judge: its identity, the parameters allow-listed."""
    if judge is None or isinstance(judge, str):
        return judge
    identity = judge.identity()
    return {**identity, "params": recorded_params(identity["params"])}


def _step(fn: Any) -> Any:
    if isinstance(fn, PromptStep):
        schema = json.dumps(json_schema(fn.output_schema), sort_keys=True)  # type: ignore[arg-type]
        return {
            "prompt": _name(fn.create_prompt),
            "version": fn.version,
            "schema": hashlib.sha256(schema.encode()).hexdigest()[:16],
            "check": None if fn.check is None else _name(fn.check),
            "for_each": None if fn.for_each is None else _name(fn.for_each),
            "judge": _judge(fn.judge),
        }
    return None if fn is None else _name(fn)


def _payload(scorer: Any, with_judge: bool) -> dict[str, Any]:
    judge = _judge if with_judge else (lambda _: None)

    def step(fn: Any) -> Any:
        found = _step(fn)
        if isinstance(found, dict) and not with_judge:
            found = {k: v for k, v in found.items() if k != "judge"}
        return found

    return {
        "id": scorer.id,
        "scale": scorer.scale,
        "config": _jsonable(scorer.config),
        "judge": judge(scorer.judge),
        "steps": [[s.kind, s.name, step(s.fn)] for s in scorer.steps],
        "score": step(scorer.score_fn),
        "reason": step(scorer.reason_step),
    }


def _digest(payload: dict[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def scorer_fingerprint(scorer: Any) -> str:
    """16 hex digits of the sha256 of the scorer's id, scale, options, steps (prompt
    versions and response schemas included) and judge (model, api_base, sampling
    parameters; not timeouts, retries or credentials)."""
    return _digest(_payload(scorer, with_judge=True))


def scorer_description(scorer: Any) -> dict[str, Any]:
    """What a results file records of a scorer (JSON values): its scale, options, prompt
    versions, judge, `fingerprint` and ``definition`` — the fingerprint without the
    judge, so that two runs can tell "another judge" from "another scorer"."""
    payload = _payload(scorer, with_judge=False)
    steps = [
        *payload["steps"],
        [None, "score", payload["score"]],
        [None, "reason", payload["reason"]],
    ]
    versions = {
        name: fn["version"] for _, name, fn in steps if isinstance(fn, dict) and "version" in fn
    }
    judges = [_recorded_judge(scorer.judge)]
    judges += [_recorded_judge(s.fn.judge) for s in scorer.steps if isinstance(s.fn, PromptStep)]
    return {
        "scale": scorer.scale,
        "options": payload["config"],
        "prompt_versions": versions,
        "judge": next((j for j in judges if j is not None), None),
        "fingerprint": _digest(_payload(scorer, with_judge=True)),
        "definition": _digest(payload),
    }
