"""A results file's header line: which scorers, defined how, judged by what, gated how.

`run_evals` writes one ``{"run": {...}}`` line each time it opens a results file (a
resumed run appends its own; the last one describes the file). Readers skip it when
they want items only; `compare_runs` and `merge_results` use it to refuse runs whose
scorers are defined differently, and the report shows the thresholds it records.
Files written before headers existed read as before (no header).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from scorers import Scorer

    from ._items import ItemResult

HEADER_PREFIX = b'{"run":'


class ScorerDefinition(BaseModel):
    """How one scorer of a run was defined (see `Scorer.describe`).

    Attributes:
        scale: Its scores' upper end.
        options: The options it was built with.
        prompt_versions: The version of each of its prompts, by step name.
        judge: Model, api_base and sampling parameters of its judge (None without one).
        fingerprint: Everything that can change its scores, hashed.
        definition: The fingerprint without the judge.
    """

    model_config = ConfigDict(extra="ignore")

    scale: float = 1.0
    options: Any = None
    prompt_versions: dict[str, str] = Field(default_factory=dict)
    judge: dict[str, Any] | None = None
    fingerprint: str = ""
    definition: str = ""

    @property
    def judge_model(self) -> str | None:
        """The judge's model string, if the scorer has a judge."""
        return None if self.judge is None else self.judge.get("model")


class DataSource(BaseModel):
    """The data a run read, as its results file records it.

    Attributes:
        name: The data file's name ("" for data given in memory).
        sha256: The hash of the file's bytes, or of the items given in memory (each
            item's JSON in order).
    """

    model_config = ConfigDict(extra="ignore")

    name: str = ""
    sha256: str = ""


class RunHeader(BaseModel):
    """The header line of a results file.

    Attributes:
        scorers: Each scorer's definition, by id.
        thresholds: The minimum mean per scorer id the run was gated on.
        min_scored: The share of items each thresholded scorer had to score, if set.
        item_thresholds: The minimum score per scorer id an item needs to pass.
        scorekit: The version of scorekit that wrote the file.
        created: When the run started (ISO 8601, UTC).
        git_commit: The commit checked out in the working directory's git repository
            (``"abc123…+dirty"``-free: the HEAD only), "" outside one.
        target: What made the outputs: the target's ``module:name`` (an `Agent` as
            ``Agent 'name'``), "" when the items carried their own; None in files that
            predate it.
        data: The data set read (None in files that predate it).
        overrides: Scorer ids whose registry entry a plugin declared as an override of
            a built-in (their definitions are the plugin's, not scorekit's).
    """

    model_config = ConfigDict(extra="ignore")

    scorers: dict[str, ScorerDefinition] = Field(default_factory=dict)
    thresholds: dict[str, float] = Field(default_factory=dict)
    min_scored: float | None = None
    item_thresholds: dict[str, float] = Field(default_factory=dict)
    scorekit: str = ""
    created: str = ""
    git_commit: str = ""
    target: str | None = None
    data: DataSource | None = None
    overrides: dict[str, str] = Field(default_factory=dict)

    def judges(self) -> list[str]:
        """The judge models of the run's scorers, each once."""
        return list(dict.fromkeys(m for d in self.scorers.values() if (m := d.judge_model)))

    def item_threshold(self, scorer_id: str) -> float | None:
        """The score an item needs to pass ``scorer_id``: its item threshold, else the
        run's threshold of that scorer (None when neither is set)."""
        found = self.item_thresholds.get(scorer_id)
        return self.thresholds.get(scorer_id) if found is None else found

    def line(self) -> bytes:
        """The header as a results file line."""
        return b'{"run":' + self.model_dump_json().encode("utf-8") + b"}\n"


def parse_header(raw: bytes) -> RunHeader | None:
    """The header a line holds, or None when it is not a header line."""
    if not raw.startswith(HEADER_PREFIX):
        return None
    try:
        return RunHeader.model_validate(json.loads(raw)["run"])
    except (ValueError, TypeError, KeyError):
        return None


def header_of(
    scorers: Mapping[str, Scorer],
    thresholds: Mapping[str, float] | None,
    min_scored: float | None,
    item_thresholds: Mapping[str, float] | None = None,
    target: str | None = None,
    data: DataSource | None = None,
) -> RunHeader:
    """The header of a run of ``scorers`` (``target``: `target_identity`'s; ``data``: what
    was read)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("scorekit")
    except PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        release = ""
    from scorers._internal import scorer_overrides

    return RunHeader(
        overrides={sid: found for sid, found in scorer_overrides().items() if sid in scorers},
        scorers={sid: ScorerDefinition.model_validate(s.describe()) for sid, s in scorers.items()},
        thresholds=dict(thresholds or {}),
        min_scored=min_scored,
        item_thresholds=dict(item_thresholds or {}),
        scorekit=release,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        git_commit=git_commit(Path.cwd()),
        target=target,
        data=data,
    )


def git_commit(start: Path) -> str:
    """The commit HEAD points at in the git repository holding ``start`` ("" outside one,
    or when it cannot be read), read from ``.git`` without running git."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
                dot_git = (folder / dot_git.read_text().split(":", 1)[1].strip()).resolve()
            if not (dot_git / "HEAD").is_file():
                continue
            head = (dot_git / "HEAD").read_text().strip()
            if not head.startswith("ref:"):
                return head  # detached
            ref = head.split(":", 1)[1].strip()
            common = dot_git / "commondir"
            root = (dot_git / common.read_text().strip()).resolve() if common.is_file() else dot_git
            for place in (dot_git / ref, root / ref):
                if place.is_file():
                    return place.read_text().strip()
            packed = root / "packed-refs"
            if packed.is_file():
                for line in packed.read_text().splitlines():
                    if line.endswith(" " + ref):
                        return line.split(" ", 1)[0]
            return ""
        except (OSError, IndexError):
            return ""
    return ""


def differences(
    baseline: RunHeader, candidate: RunHeader, scorer_ids: list[str]
) -> tuple[list[str], list[str]]:
    """What differs between two runs' shared scorers: definitions (scale, options,
    prompt versions, steps) that make their scores incomparable, and judges, which only
    deserve a warning."""
    errors: list[str] = []
    warnings: list[str] = []
    for sid in scorer_ids:
        a, b = baseline.scorers.get(sid), candidate.scorers.get(sid)
        if a is None or b is None:
            continue
        if not (a.definition and b.definition):  # a file written before headers
            if a.scale != b.scale:
                errors.append(f"{sid}: scale {a.scale:g} vs {b.scale:g}")
            continue
        if a.definition != b.definition:
            errors.append(f"{sid}: {_what_differs(a, b)}")
        if a.judge != b.judge or a.fingerprint != b.fingerprint:
            warnings.append(f"{sid}: {changes(a, b)}")
    return errors, warnings


def mixed_configurations(items: Iterable[ItemResult], headers: Sequence[RunHeader]) -> list[str]:
    """Per scorer whose items carry more than one fingerprint, what differs (from the
    headers that define them) and how many items each has; empty for one configuration."""
    counts: dict[str, dict[str, int]] = {}
    for item in items:
        for sid, fingerprint in item.fingerprints.items():
            if sid in item.scorer_results:
                found = counts.setdefault(sid, {})
                found[fingerprint] = found.get(fingerprint, 0) + 1
    defined = {(sid, d.fingerprint): d for h in headers for sid, d in h.scorers.items()}
    problems = []
    for sid, found in counts.items():
        if len(found) < 2:
            continue
        (first, n_first), (second, n_second) = list(found.items())[:2]
        a, b = defined.get((sid, first)), defined.get((sid, second))
        what = f"fingerprints {first} vs {second}" if a is None or b is None else changes(a, b)
        problems.append(f"{sid}: {what} ({n_first} vs {n_second} items)")
    return problems


def stale_configurations(
    items: Iterable[ItemResult], headers: Sequence[RunHeader], current: RunHeader
) -> list[str]:
    """Per scorer of ``current``, the items scored under another of its configurations:
    what differs and how many items."""
    counts: dict[tuple[str, str], int] = {}
    for item in items:
        for sid, fingerprint in item.fingerprints.items():
            now = current.scorers.get(sid)
            if now is not None and sid in item.scorer_results and fingerprint != now.fingerprint:
                counts[sid, fingerprint] = counts.get((sid, fingerprint), 0) + 1
    defined = {(sid, d.fingerprint): d for h in headers for sid, d in h.scorers.items()}
    problems = []
    for (sid, fingerprint), count in counts.items():
        old, now = defined.get((sid, fingerprint)), current.scorers[sid]
        what = (
            f"fingerprint {fingerprint} vs {now.fingerprint}" if old is None else changes(old, now)
        )
        problems.append(f"{sid}: {what} ({count} item{'s' if count != 1 else ''})")
    return problems


def changes(a: ScorerDefinition, b: ScorerDefinition) -> str:
    """What differs between two configurations of one scorer, in words."""
    if a.definition != b.definition:
        return _what_differs(a, b)
    if a.judge_model != b.judge_model:
        return f"judge {a.judge_model} vs {b.judge_model}"
    shown = _changed(a.judge or {}, b.judge or {})
    if not shown:  # only parameters a results file does not record (credentials...)
        return "judge settings that results files do not record (credentials, provider parameters)"
    return f"judge settings {shown}"


def _what_differs(a: ScorerDefinition, b: ScorerDefinition) -> str:
    if a.scale != b.scale:
        return f"scale {a.scale:g} vs {b.scale:g}"
    if a.options != b.options:
        if isinstance(a.options, dict) and isinstance(b.options, dict):
            return f"options {_changed(a.options, b.options)}"
        return f"options {a.options!r} vs {b.options!r}"
    if a.prompt_versions != b.prompt_versions:
        return f"prompt versions {_changed(a.prompt_versions, b.prompt_versions)}"
    return "steps or scoring functions (same options and prompt versions)"


def _changed(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    keys = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
    return ", ".join(f"{k}={a.get(k)!r} vs {b.get(k)!r}" for k in keys)
