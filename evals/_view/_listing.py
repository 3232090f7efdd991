"""The runs listing: what the runs page and its trend charts read of each run, and its
JSON kept while no run changed."""

from __future__ import annotations

import json
from typing import Any

from ._params import Encoded


def listed(record: dict[str, Any]) -> dict[str, Any]:
    """What the runs listing and its trend charts read of a run's record — start, commit,
    each scorer's scale and judge model, means with intervals, items, errors — about a
    fifth of it (the run page gets the whole record)."""
    header = record.get("header")
    summary = record["summary"]
    return {
        "path": record["path"],
        "items": record["items"],
        "header": None
        if header is None
        else {
            "created": header.get("created"),
            "git_commit": header.get("git_commit"),
            "scorers": {
                sid: {
                    "scale": d.get("scale"),
                    "judge": d.get("judge") and {"model": d["judge"].get("model")},
                }
                for sid, d in (header.get("scorers") or {}).items()
            },
        },
        "summary": {
            "item_errors": summary.get("item_errors"),
            "scorers": {
                sid: {key: s.get(key) for key in ("mean", "ci_low", "ci_high")}
                for sid, s in summary["scorers"].items()
            },
        },
    }


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)


class Listing:
    """The listing's JSON, made again only when the index's records change."""

    def __init__(self) -> None:
        self._records: list[dict[str, Any]] = []
        self._runs: list[dict[str, Any]] = []
        self._json = "[]"

    def answer(self, found: dict[str, Any]) -> Encoded:
        """The runs page's answer: ``found`` (`RunIndex.scan`'s, with ``labels``) with its
        runs as `listed` shows them, oldest first. The records are held, so an unchanged
        record is the same object, and a changed one a new object."""
        records = found.pop("runs")
        kept = self._records
        if len(kept) != len(records) or any(a is not b for a, b in zip(kept, records, strict=True)):
            runs = sorted(
                map(listed, records),
                key=lambda r: ((r["header"] or {}).get("created") or "", r["path"]),
            )
            self._records, self._runs, self._json = records, runs, _json(runs)
        text = '{"runs": ' + self._json + ", " + _json(found)[1:]
        return Encoded({"runs": self._runs, **found}, text)
