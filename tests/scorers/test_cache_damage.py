"""A damaged judge cache never stops a run: bad entries are misses, a bad file is moved
aside with one warning and replaced (issue 25, item 7)."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest

from evals import run_evals
from evals.testing import FakeLLMServer
from scorers import JudgeCache, create_context_recall_scorer

ITEMS = [
    {
        "id": str(i),
        "input": f"Where was Einstein born? ({i})",
        "ground_truth": f"Einstein was born in Ulm. He won the Nobel Prize (case {i}).",
        "context": ["Albert Einstein was born in Ulm in 1879."],
    }
    for i in range(40)
]


def test_a_file_that_is_not_a_database_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    path.write_text("this is not a database, it is a shopping list\n" * 100)
    with pytest.warns(RuntimeWarning, match="cache.sqlite3 is damaged"):
        cache = JudgeCache(path)  # before: sqlite3.DatabaseError
    cache.set("k", {"output": {"a": 1}})
    assert cache.get("k") == {"output": {"a": 1}}
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_text().startswith("this is not a database")


def test_entries_that_are_not_json_objects_are_misses_and_get_replaced(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c.sqlite3")
    with FakeLLMServer() as server:
        scorer = create_context_recall_scorer(server.judge(cache=cache))
        first = run_evals(ITEMS[:2], [scorer], progress=False)
        calls = server.call_count
        assert calls == 4
        conn = sqlite3.connect(cache.path)
        values = ["{not json", "[1, 2]", '"a string"', "null"]
        for (key,), value in zip(conn.execute("SELECT key FROM judge_cache"), values, strict=False):
            conn.execute("UPDATE judge_cache SET value = ? WHERE key = ?", (value, key))
        conn.commit()
        conn.close()
        again = run_evals(ITEMS[:2], [scorer], progress=False)  # before: every run failed
        assert again.summary.item_errors == 0 and again.scores == first.scores
        assert server.call_count == calls * 2  # the bad entries were misses
        run_evals(ITEMS[:2], [scorer], progress=False)
        assert server.call_count == calls * 2  # ... and were replaced


@pytest.mark.slow
def test_a_damaged_page_costs_model_calls_not_runs(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    with FakeLLMServer() as server:
        judge = server.judge(cache=JudgeCache(path))
        scorer = create_context_recall_scorer(judge)
        run_evals(ITEMS, [scorer], progress=False)
        assert judge.cache is not None
        judge.cache._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # pages into the file
        data = bytearray(path.read_bytes())
        assert len(data) > 4 * 4096
        data[4096:-4096] = b"\xff" * (len(data) - 2 * 4096)  # every page but the first and last
        path.write_bytes(bytes(data))
        damaged = JudgeCache.__new__(JudgeCache)  # a new process would open it like this
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            damaged.__init__(path)  # type: ignore[misc]
            scorer = create_context_recall_scorer(server.judge(cache=damaged))
            result = run_evals(ITEMS, [scorer], progress=False)
        assert result.summary.item_errors == 0  # before: most runs failed
        assert sum("is damaged" in str(w.message) for w in caught) == 1
