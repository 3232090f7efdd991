"""The judge's verdicts in a run, as a person sees them to label them, and the stratified
seeded draw of the ones to show (`scorekit view`'s review, `sample_verdicts`)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorers import ConfigError
from scorers._internal import integer

from .._graded import LEVELS
from .._labels import JudgeVerdict, LabelStore, label_store

if TYPE_CHECKING:
    from .._file._header import RunHeader
    from .._file._items import ItemResult

VERDICT_STEP = "verdicts"
"""The prompt step whose verdicts people label; its version keys the labels."""


def judged_scorers(header: RunHeader | None) -> dict[str, tuple[str, str]]:
    """Per scorer of a run whose judge gives verdicts people can label: (judge model,
    verdict prompt version)."""
    if header is None:
        return {}
    return {
        sid: (model, d.prompt_versions[VERDICT_STEP])
        for sid, d in header.scorers.items()
        if (model := d.judge_model) and VERDICT_STEP in d.prompt_versions
    }


def header_of_run(run: Any) -> tuple[RunHeader | None, Path | None]:
    """A run's header and where its results file is: from a `RunHeader` (no file), a
    results file (its last header) or a run (its ``header`` and ``results_path``)."""
    from .._file._header import RunHeader

    if run is None or isinstance(run, RunHeader):
        return run, None
    if isinstance(run, (str, os.PathLike)):
        path = Path(run)
        if not path.is_file():
            raise ConfigError(f"results file {path} does not exist")
        return last_header(path), path
    near = getattr(run, "results_path", None)
    return getattr(run, "header", None), None if near is None else Path(near)


def last_header(path: Path) -> RunHeader | None:
    """The last header line of a results file (read as a stream; None without one)."""
    from .._file._header import HEADER_PREFIX, parse_header

    found = None
    with path.open("rb") as handle:
        for raw in handle:
            if raw.startswith(HEADER_PREFIX):
                found = parse_header(raw) or found
    return found


def run_items(run: Any) -> Iterable[ItemResult] | None:
    """A run's items, read as a stream: a results file's (in file order, the last line
    per id), a run's ``iter_items()``; None for a bare header (no items to read)."""
    from .._file._header import RunHeader

    if run is None or isinstance(run, RunHeader):
        return None
    if isinstance(run, (str, os.PathLike)):
        from .._file._previous import PreviousItems

        return PreviousItems(Path(run)).in_file_order()
    iter_items = getattr(run, "iter_items", None)
    return None if iter_items is None else iter_items()


def run_verdicts(
    items: Iterable[ItemResult], header: RunHeader | None
) -> dict[str, dict[str, bool | int]]:
    """The verdicts a run's judge gave, as agreement compares them with people's labels:
    per judged scorer, each question's label key → the verdict (supported / useful, or a
    graded verdict's grade 0-3; the first met, when the run judged a question twice)."""
    judged = judged_scorers(header)
    found: dict[str, dict[str, bool | int]] = {sid: {} for sid in judged}
    if not judged:
        return found  # no judge: the items are not read
    for item in items:
        for v in verdicts_of(item, "", judged):
            found[v.scorer_id].setdefault(
                v.key, v.grade if v.graded and v.grade is not None else v.supported
            )
    return found


def verdicts_of(
    item: ItemResult, run: str, judged: dict[str, tuple[str, str]]
) -> list[JudgeVerdict]:
    """Every verdict a person can label in one finished item (``judged``: the run's
    `judged_scorers`)."""
    found: list[JudgeVerdict] = []
    for sid, result in item.scorer_results.items():
        if sid not in judged or result.status != "scored":
            continue
        model, prompt = judged[sid]
        details = result.details
        listed = (details.get("sampling") or details.get(VERDICT_STEP) or {}).get("verdicts")
        if not isinstance(listed, list):
            continue
        common: dict[str, Any] = {
            "scorer_id": sid,
            "judge_model": model,
            "prompt_version": prompt,
            "run": run,
            "item_id": item.item.id,
            "input": _text(item.item.input),
        }
        chunks = [_chunk_text(c) for c in details.get("context") or []]
        claims = (details.get("claims_used") or details.get("claims") or {}).get("claims") or []
        for v in listed:
            if isinstance(v, dict) and v.get("relevance") in LEVELS:
                found.extend(_relevance_verdict(common, v, chunks))
                continue
            if not isinstance(v, dict) or v.get("verdict") not in ("yes", "no"):
                continue
            supported, reason = v["verdict"] == "yes", str(v.get("reason", ""))
            if "claim_index" in v and 0 <= (i := v["claim_index"]) < len(claims):
                found.append(
                    JudgeVerdict(
                        **common,
                        kind="claim",
                        position=i,
                        text=str(claims[i]),
                        context=chunks,
                        supported=supported,
                        reason=reason,
                    )
                )
            elif "context_index" in v and 0 <= (i := v["context_index"]) < len(chunks):
                found.append(
                    JudgeVerdict(
                        **common,
                        kind="chunk",
                        position=i,
                        text=chunks[i],
                        reference=_reference(item, sid),
                        supported=supported,
                        reason=reason,
                    )
                )
    return found


def _relevance_verdict(
    common: dict[str, Any], v: dict[str, Any], chunks: list[str]
) -> list[JudgeVerdict]:
    """A context-relevance verdict on one chunk (its level as a grade), if it names one."""
    i = v.get("context_index", -1)
    if not isinstance(i, int) or not 0 <= i < len(chunks):
        return []
    grade = LEVELS.index(v["relevance"])
    return [
        JudgeVerdict(**common, kind="relevance", position=i, text=chunks[i],
                     supported=grade >= 2, grade=grade, reason=str(v.get("reason", "")))
    ]  # fmt: skip


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and isinstance(value[-1], dict):
        return str(value[-1].get("content", ""))  # a message history: its last message
    return str(value)


def _chunk_text(chunk: Any) -> str:
    return str(chunk.get("text", "")) if isinstance(chunk, dict) else str(chunk)


def _reference(item: ItemResult, sid: str) -> str:
    if sid == "context-utilization":
        target = item.target_result
        output = target.output if target is not None else item.item.output
        return _text(output)
    return _text(item.item.ground_truth)


def sample_verdicts(
    run: Any,
    n: int = 30,
    *,
    seed: int = 0,
    labels: LabelStore | str | os.PathLike[str] | None = None,
) -> list[JudgeVerdict]:
    """Verdicts of a run's judge for a person to label (as ``scorekit view`` shows them):
    up to ``n``, stratified by scorer and verdict, drawn with ``seed``, leaving out those
    already labelled in ``labels`` (default: beside the results file).

    Args:
        run: A results file, or a run (`EvalResult`, `read_results`' list).
        n: How many.
        seed: The draw's seed.
        labels: Where the labels are, as for `judge_agreements`.

    Returns:
        `JudgeVerdict`s; give each to `LabelStore.save` with the person's answer.
    """
    n = integer("n", n)
    header, near = header_of_run(run)
    store = label_store(labels, near)
    items = run_items(run)
    if items is None:
        raise ConfigError("sample_verdicts needs a run or its results file, not a bare header")
    name = Path(run).name if isinstance(run, (str, os.PathLike)) else (near.name if near else "")
    return draw_verdicts(items, name, header, n, seed=seed, skip=store.keys())


def draw_verdicts(
    items: Iterable[ItemResult],
    run: str,
    header: RunHeader | None,
    n: int,
    *,
    seed: int = 0,
    skip: set[str] | frozenset[str] = frozenset(),
) -> list[JudgeVerdict]:
    """Up to ``n`` verdicts for people to label, stratified: an equal share per (scorer,
    supported or not) while each has verdicts left, each drawn at random (``seed``) from
    all of the run's verdicts of its kind (reservoir sampling, one pass); verdicts whose
    key is in ``skip`` (already labelled) are not drawn, and a verdict met twice counts once. Strata take turns in a fixed
    order, so the draw is the same for the same file and seed."""
    rng = random.Random(seed)
    reservoirs: dict[tuple[str, bool], list[JudgeVerdict]] = {}
    seen: dict[tuple[str, bool], int] = {}
    keys = set(skip)
    judged = judged_scorers(header)
    for item in items:
        for v in verdicts_of(item, run, judged):
            if v.key in keys:
                continue
            keys.add(v.key)
            stratum = (v.scorer_id, v.supported)
            count = seen[stratum] = seen.get(stratum, 0) + 1
            kept = reservoirs.setdefault(stratum, [])
            if len(kept) < n:
                kept.append(v)
            elif (j := rng.randrange(count)) < n:
                kept[j] = v
    order = sorted(reservoirs, key=lambda s: (s[0], not s[1]))
    for stratum in order:
        rng.shuffle(reservoirs[stratum])
    chosen: list[JudgeVerdict] = []
    taken = {stratum: 0 for stratum in order}
    while len(chosen) < n and any(taken[s] < len(reservoirs[s]) for s in order):
        for stratum in order:
            if len(chosen) < n and taken[stratum] < len(reservoirs[stratum]):
                chosen.append(reservoirs[stratum][taken[stratum]])
                taken[stratum] += 1
    return chosen
