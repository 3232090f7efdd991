"""The results file: append-only JSON lines, one writer at a time, prompts stored once.

Each finished item is one line, flushed as soon as it is written (a streamed run's
model-free items: a block of lines at once, `ResultsFile.write_outcomes`). A scorer result's
``details["prompts"]`` repeats what its ``judge_calls[i].messages`` already hold, so the
file keeps a reference (``{"$call": i, "cut": n}``) in its place and reading restores
the text exactly. ``store_prompts=False`` drops prompts and sent messages altogether
(responses stay). Resume reads the file line by line.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import ValidationError

from scorers import ConfigError
from scorers._internal import Outcome, json_fallback

from .._item import EvalItem
from ._compact import compact, expand, header_fingerprints, header_scales, shrink
from ._free_details import model_free_line, outcome_line, shrink_free
from ._header import HEADER_PREFIX, RunHeader, parse_header
from ._items import ItemError, ItemResult
from ._previous import COMPACT_PREFIX, PreviousItems, parsed_line

try:  # advisory locks where the platform has them (POSIX)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def encode(
    result: ItemResult, store_prompts: bool = True, header: RunHeader | None = None
) -> tuple[bytes, ItemResult]:
    """The file line of ``result`` and the result it stands for.

    Values JSON cannot hold (objects a target returned) are written as their ``repr``.
    When the line still cannot be written (text that is not valid Unicode, say), the
    item becomes an error of its own (phase ``"write"``) and only it is affected.
    A compact line (``store_prompts=False``, or an item no model worked on: it has no
    prompts to keep) starts with `COMPACT_PREFIX` and leaves out what a reader
    restores: defaults, shared chunks, what ``header`` records; model-free details are
    shrunk in every line (see `shrink_free`).
    """
    try:
        if _model_free(result):
            fingerprints = (
                {} if header is None else header_fingerprints(header, result.scorer_results)
            )
            scales = None if header is None else header_scales(header)
            body = model_free_line(result, fingerprints, scales)
            if body is not None:
                return COMPACT_PREFIX + body + b"\n", result
        line_result = result.model_copy(update={"scorer_results": shrink_free(result)})
        if store_prompts and not _model_free(result):
            line = compact(line_result).model_dump_json(fallback=json_fallback)
            return line.encode("utf-8") + b"\n", result
        data = compact(line_result, False).model_dump(
            mode="json", fallback=json_fallback, exclude_defaults=True
        )
        shrink(data, header)
        text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return COMPACT_PREFIX + text[1:].encode("utf-8") + b"\n", result
    except (ValueError, TypeError) as exc:  # PydanticSerializationError is a ValueError
        failed = ItemResult(
            item=result.item,
            error=ItemError(
                phase="write",
                message=f"the item's results cannot be stored as JSON: {type(exc).__name__}: {exc}",
            ),
            duration_s=result.duration_s,
        )
        return failed.model_dump_json().encode("utf-8") + b"\n", failed


def _model_free(result: ItemResult) -> bool:
    """No model call and no target: nothing a full line would keep that a compact one drops
    (but durations under a millisecond)."""
    return (
        result.target_result is None
        and not result.target_calls
        and not result.other_calls
        and not any(score.judge_calls for score in result.scorer_results.values())
    )


def iter_lines(path: Path) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, end offset, raw line)`` of a file, read as a stream."""
    offset = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            offset += len(raw)
            yield number, offset, raw


def read_file(path: Path) -> tuple[dict[str, ItemResult], int, list[RunHeader]]:
    """The items of a results file (the last line per id wins), the byte offset where
    its complete lines end and its headers in order (none in a file written before
    headers; the last describes the file's latest run); a last line cut short by a crash
    is left out, an unreadable line elsewhere is reported on stderr with its number and
    skipped."""
    found: dict[str, ItemResult] = {}
    headers: list[RunHeader] = []
    header: RunHeader | None = None
    size = path.stat().st_size
    good_end = 0
    problems: list[str] = []
    for number, end, raw in iter_lines(path):
        if not raw.strip():
            good_end = end
            continue
        if raw.startswith(HEADER_PREFIX) and raw.endswith(b"\n"):
            parsed = parse_header(raw)
            if parsed is not None:
                header = parsed
                headers.append(parsed)
            good_end = end
            continue
        try:
            result = parsed_line(raw, header)
        except ValidationError as exc:
            if end == size and not raw.endswith(b"\n"):
                break  # cut short by a crash: dropped, and rewritten on resume
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            problems.append(f"line {number} is not a result line ({where}: {first['msg']})")
            good_end = end
            continue
        if not raw.endswith(b"\n"):
            break  # complete JSON but no newline: rewrite it to be safe
        good_end = end
        found[result.item.id] = expand(result)
    if problems and not found:
        raise ConfigError(
            f"{path} is not a scorekit results file ({problems[0]}); give a file written "
            "by run_evals(results_path=...) (CLI: `scorekit run --out`)"
        )
    for problem in problems:
        print(f"scorekit: {path} {problem}; skipped", file=sys.stderr)
    return found, good_end, headers


def refuse_foreign(path: Path) -> None:
    """Refuse to resume (append to, or cut short) a file that scorekit did not write: its
    first line must be a run header or a result line.

    Raises:
        ConfigError: Naming the file and what its first line is.
    """
    with path.open("rb") as handle:
        first = next((raw for raw in handle if raw.strip()), b"")
    if not first or first.startswith(HEADER_PREFIX):
        return
    try:
        parsed_line(first, None)
    except (ValidationError, ValueError):
        shown = first[:60].decode("utf-8", "replace").rstrip()
        raise ConfigError(
            f"results file {path} was not written by scorekit (its first line, {shown!r}, "
            "is neither a run header nor a result line); nothing was changed in it. "
            "Write this run's results to another path (results_path=..., CLI: --out)"
        ) from None


class ResultsFile:
    """The append-only JSONL file of finished items, locked against a second writer."""

    def __init__(
        self,
        path: Path,
        resume: bool,
        store_prompts: bool = True,
        header: RunHeader | None = None,
        lazy: bool = False,
    ):
        self.path = path
        self.store_prompts = store_prompts
        self.header = header
        self.previous: Mapping[str, ItemResult] = {}
        self.previous_headers: list[RunHeader] = []
        if path.is_dir():
            raise ConfigError(f"results file {path} is a directory; give a file path")
        if path.exists() and path.stat().st_size and not resume:
            raise ConfigError(
                f"results file {path} already exists; resume it (resume=True, CLI: --resume) "
                "or choose another path"
            )
        if resume and path.exists() and path.stat().st_size:
            refuse_foreign(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.handle: BinaryIO = path.open("ab")
        except OSError as exc:
            raise ConfigError(f"cannot write results file {path}: {exc.strerror or exc}") from None
        self._lock()
        if resume and path.stat().st_size:
            if lazy:  # each line parsed when looked up: a big run's file does not fit
                self.previous = found = PreviousItems(path)
                good_end, self.previous_headers = found.good_end, found.headers
            else:
                self.previous, good_end, self.previous_headers = read_file(path)
            if good_end < path.stat().st_size:  # drop a line cut short by a crash
                os.ftruncate(self.handle.fileno(), good_end)

    def begin(self) -> None:
        """Write this run's header (its configuration: the last header wins); called
        once the run has checked what it resumes."""
        if self.header is not None:
            self.handle.write(self.header.line())
            self.handle.flush()

    def _lock(self) -> None:
        if fcntl is None:  # pragma: no cover
            return
        try:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.handle.close()
            raise ConfigError(
                f"results file {self.path} is being written by another scorekit run; wait "
                "for it to finish or choose another path"
            ) from None

    def write(self, result: ItemResult) -> ItemResult:
        """Append ``result``; returns what was written (an error result if it could not
        be stored as it was)."""
        line, written = encode(result, self.store_prompts, self.header)
        self.handle.write(line)
        self.handle.flush()
        return written

    def write_outcomes(
        self,
        items: Sequence[tuple[EvalItem, Mapping[str, Outcome]]],
        seconds: Mapping[str, float],
        scorer_ids: Mapping[str, str],
        fingerprints: Mapping[str, str],
        scales: Mapping[str, float],
    ) -> list[int]:
        """Append the lines of model-free items at once (one write, one flush), each item
        with its scorers' fast-path outcomes by key: the lines their `ItemResult`s would
        have (see `outcome_line`). Returns the positions of the items whose line cannot be
        built so (a value that is not plain JSON): the caller writes their results."""
        header = self.header
        tail: dict[str, Any] = {}
        if fingerprints and fingerprints != (
            {} if header is None else header_fingerprints(header, dict(fingerprints))
        ):
            tail["fingerprints"] = dict(fingerprints)
        if scales != (None if header is None else header_scales(header)):
            tail["scales"] = dict(scales)
        lines, left = [], []
        for position, (item, outcomes) in enumerate(items):
            body = outcome_line(item, outcomes, seconds, scorer_ids, tail)
            if body is None:
                left.append(position)
            else:
                lines.append(COMPACT_PREFIX + body + b"\n")
        self.handle.write(b"".join(lines))
        self.handle.flush()
        return left

    def close(self) -> None:
        """Release the lock and close the file."""
        self.handle.close()
