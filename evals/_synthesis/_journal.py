"""The synthesis log: every judge step's result as it finishes, so a killed run resumes
without repeating a call, and every prompt and answer stays on record.

``<out>.log`` holds a header line (what decides the candidates and their prompts), then
one line per step result: ``{"serial", "kind", "passages", "step", "result"}``, the
result a `scorers.ScoreResult` with its judge calls (messages and responses).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from scorers import Chunk, ConfigError, ScoreResult

from ._plan import Candidate

FORMAT = 1
_MUST_MATCH = ("corpus", "seed", "kinds", "language", "writers", "checker")


def log_path(out: Path) -> Path:
    """Where the log of a run writing ``out`` goes: beside it, ``.log`` appended."""
    return out.with_name(out.name + ".log")


def corpus_digest(passages: Sequence[Chunk]) -> str:
    """A hash of the passages' ids and texts, in order."""
    digest = hashlib.sha256()
    for passage in passages:
        digest.update(f"{passage.id}\x00{passage.text}\x01".encode())
    return digest.hexdigest()[:16]


class Journal:
    """The log of one synthesis run (in memory only without a path)."""

    def __init__(self, path: Path | None, header: dict[str, Any], resume: bool):
        self.path = path
        self.done: dict[tuple[int, str], tuple[tuple[Any, ...], ScoreResult]] = {}
        self._file: IO[str] | None = None
        if path is None:
            return
        if path.exists() and resume:
            self._read(path, header)
            self._file = path.open("a", encoding="utf-8")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("w", encoding="utf-8")
            self._write({"scorekit_synthesis": FORMAT, **header})

    def _read(self, path: Path, header: dict[str, Any]) -> None:
        data = path.read_bytes()
        lines = data.split(b"\n")
        try:
            first = json.loads(lines[0])
        except ValueError:
            raise ConfigError(f"{path}: not a scorekit synthesis log") from None
        if not isinstance(first, dict) or first.get("scorekit_synthesis") != FORMAT:
            raise ConfigError(f"{path}: not a scorekit synthesis log (format {FORMAT})")
        for key in _MUST_MATCH:
            if first.get(key) != header.get(key):
                raise ConfigError(
                    f"{path} was written with another {key} ({first.get(key)!r}, now "
                    f"{header.get(key)!r}); resume with the same corpus, model and options, "
                    "or write to a new --out"
                )
        kept = len(lines[0]) + 1
        for raw in lines[1:]:
            try:
                event = json.loads(raw)
                result = ScoreResult.model_validate(event["result"])
            except (ValueError, KeyError, TypeError, ValidationError):
                break  # the line a kill cut short, and nothing after it
            where = (event["kind"], tuple(event["passages"]))
            self.done[(event["serial"], event["step"])] = (where, result)
            kept += len(raw) + 1
        if kept < len(data):
            with path.open("r+b") as file:
                file.truncate(min(kept, len(data)))

    def _write(self, record: dict[str, Any]) -> None:
        assert self._file is not None
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()

    def get(self, candidate: Candidate, step: str, ids: list[str]) -> ScoreResult | None:
        """The logged result of ``step`` for ``candidate``, if any.

        Raises:
            ConfigError: When the log names other passages for this candidate.
        """
        found = self.done.get((candidate.serial, step))
        if found is None:
            return None
        if found[0] != (candidate.kind, tuple(ids)):
            raise ConfigError(
                f"{self.path}: candidate {candidate.serial} was {found[0]}, now "
                f"{(candidate.kind, tuple(ids))}; the log belongs to another run"
            )
        return found[1]

    def add(self, candidate: Candidate, step: str, ids: list[str], result: ScoreResult) -> None:
        """Record a finished step."""
        self.done[(candidate.serial, step)] = ((candidate.kind, tuple(ids)), result)
        if self._file is not None:
            self._write(
                {
                    "serial": candidate.serial,
                    "kind": candidate.kind,
                    "passages": ids,
                    "step": step,
                    "result": result.model_dump(mode="json", exclude_defaults=True),
                }
            )

    def close(self) -> None:
        """Close the file."""
        if self._file is not None:
            self._file.close()
            self._file = None
