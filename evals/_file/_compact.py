"""What a results line holds: prompts once (referenced from the calls that sent them),
and with ``store_prompts=False`` only what explains each score."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scorers import ScoreResult

from ._free_details import grow_free
from ._items import ItemResult

if TYPE_CHECKING:
    from ._header import RunHeader


def _user_content(messages: list[dict[str, Any]]) -> str | None:
    for message in messages:
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return message["content"]
    return None


def _prompt_ref(prompt: Any, result: ScoreResult) -> Any:
    """A reference to the judge call whose messages hold ``prompt``, else ``prompt``."""
    for index, call in enumerate(result.judge_calls):
        if isinstance(prompt, str):
            content = _user_content(call.messages)
            if content is not None and content.startswith(prompt):
                return {"$call": index, "cut": len(prompt)}
        elif isinstance(prompt, list) and call.messages[: len(prompt)] == prompt:
            return {"$call": index, "messages": len(prompt)}
    return prompt


def _resolve_ref(value: Any, result: ScoreResult) -> Any:
    if not (isinstance(value, dict) and "$call" in value):
        return value
    try:
        messages = result.judge_calls[value["$call"]].messages
    except (IndexError, TypeError):
        return value
    if "messages" in value:
        return messages[: value["messages"]]
    content = _user_content(messages)
    return value if content is None else content[: value["cut"]]


def compact(result: ItemResult, store_prompts: bool = True) -> ItemResult:
    """``result`` as written to the file: each prompt once, or with ``store_prompts=False``
    only what explains the scores (see `_compact_score`)."""
    scored = {}
    chunks = {} if store_prompts else _chunk_sources(result)
    for sid, score in result.scorer_results.items():
        prompts = score.details.get("prompts")
        if not store_prompts:
            score = _compact_score(score, chunks)
        elif isinstance(prompts, dict):
            refs = {key: _prompt_ref(p, score) for key, p in prompts.items()}
            score = score.model_copy(update={"details": {**score.details, "prompts": refs}})
        scored[sid] = score
    update: dict[str, Any] = {"scorer_results": scored}
    if not store_prompts:
        update["duration_s"] = round(result.duration_s, 3)
        if result.target_result is not None:
            duration = round(result.target_result.duration_s, 3)
            update["target_result"] = result.target_result.model_copy(
                update={"duration_s": duration}
            )
        update["target_calls"] = [
            c.model_copy(update={"messages": []}) for c in result.target_calls
        ]
        update["other_calls"] = [c.model_copy(update={"messages": []}) for c in result.other_calls]
    return result.model_copy(update=update)


def expand(result: ItemResult) -> ItemResult:
    """Undo `compact`'s references (prompts, shared chunks, repeated claims) and
    `shrink_free`'s, in place."""
    chunks: dict[str, list[dict[str, Any]]] | None = None  # only when a line refers to them
    for score in result.scorer_results.values():
        details = score.details
        prompts = details.get("prompts")
        if isinstance(prompts, dict):
            details["prompts"] = {k: _resolve_ref(v, score) for k, v in prompts.items()}
        ref = details.get("context")
        if isinstance(ref, dict) and "$chunks" in ref:
            chunks = _chunk_sources(result) if chunks is None else chunks
            if ref["$chunks"] in chunks:
                details["context"] = chunks[ref["$chunks"]]
        ref = details.get("claims_used")
        if isinstance(ref, dict) and ref.get("$same") in details:
            details["claims_used"] = details[ref["$same"]]
    grow_free(result)
    return result


def _chunk_sources(result: ItemResult) -> dict[str, list[dict[str, Any]]]:
    """The item's chunks and the target's, as the scorers' details hold them."""
    found = {}
    if result.item.context is not None:
        found["item"] = [c.model_dump(mode="json") for c in result.item.context]
    target = result.target_result
    if target is not None and target.context is not None:
        found["target"] = [c.model_dump(mode="json") for c in target.context]
    return found


def _compact_score(score: ScoreResult, chunks: dict[str, list[dict[str, Any]]]) -> ScoreResult:
    """A score as a compact line holds it: no prompts or sent messages; the retrieved
    chunks as a reference to the item's (or target's) when they are the same; claims
    used as a reference to the claims when they are the same; a reason built from
    verdicts cut to its first line (the verdicts stay); responses only of calls that
    failed (a successful call's answer is the step result in ``details``); times to the
    millisecond."""
    details = {k: v for k, v in score.details.items() if k != "prompts"}
    context = details.get("context")
    for name, listed in chunks.items():
        if context == listed:
            details["context"] = {"$chunks": name}
            break
    if "claims" in details and details.get("claims_used") == details["claims"]:
        details["claims_used"] = {"$same": "claims"}
    reason = score.reason
    if "verdicts" in details and "\n" in reason:
        reason = reason.split("\n", 1)[0]
    calls = [
        c.model_copy(
            update={
                "messages": [],
                "response": "" if c.error is None else c.response,
                "latency_s": round(c.latency_s, 3),
            }
        )
        for c in score.judge_calls
    ]
    update = {"details": details, "judge_calls": calls, "reason": reason}
    return score.model_copy(update={**update, "duration_s": round(score.duration_s, 3)})


def shrink(data: dict[str, Any], header: RunHeader | None) -> None:
    """Leave out of a compact line's data, in place, what a reader restores from the
    line and the file's header (see `grow`): each scorer result's id (its key), a judge
    call's model when it is the line's first model, and fingerprints and scales equal
    to the header's."""
    results = data.get("scorer_results", {})
    first_model = None
    for sid, score in results.items():
        if score.get("scorer_id") == sid:
            del score["scorer_id"]
        for call in score.get("judge_calls", ()):
            if first_model is None:
                first_model = call.get("model")
            elif call.get("model") == first_model:
                del call["model"]
    if header is not None:
        if data.get("fingerprints", {}) == header_fingerprints(header, results):
            data.pop("fingerprints", None)
        if data.get("scales") == header_scales(header):
            data.pop("scales", None)


def grow(data: dict[str, Any], header: RunHeader | None) -> None:
    """Undo `shrink`, in place, with the header that precedes the line in its file."""
    results = data.get("scorer_results", {})
    first_model = None
    for sid, score in results.items():
        score.setdefault("scorer_id", sid)
        for call in score.get("judge_calls", ()):
            if "model" not in call:
                call["model"] = first_model
            elif first_model is None:
                first_model = call["model"]
    if header is not None:
        data.setdefault("fingerprints", header_fingerprints(header, results))
        data.setdefault("scales", header_scales(header))


def header_fingerprints(header: RunHeader, results: dict[str, Any]) -> dict[str, str]:
    return {sid: header.scorers[sid].fingerprint for sid in results if sid in header.scorers}


def header_scales(header: RunHeader) -> dict[str, float]:
    return {sid: d.scale for sid, d in header.scorers.items() if d.scale != 1.0}
