"""Files written whole keep the mode a plain write gives (issue 34, item 10)."""

from __future__ import annotations

import os
import stat

from scorers._atomic import write_atomically


def mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_umask_mode_and_an_existing_one_keeps_its_own(tmp_path):
    old = os.umask(0o022)
    try:
        assert mode(write_atomically(tmp_path / "new.html", b"x")) == 0o644
        existing = tmp_path / "shared.html"
        existing.write_bytes(b"old")
        existing.chmod(0o664)
        write_atomically(existing, b"new")
        assert mode(existing) == 0o664 and existing.read_bytes() == b"new"
        os.umask(0o077)
        assert mode(write_atomically(tmp_path / "private.html", b"x")) == 0o600
    finally:
        os.umask(old)


def test_reports_merges_and_qrels_get_it_too(tmp_path):
    from evals import merge_results, run_evals
    from scorers import create_id_context_recall_scorer, write_qrels

    old = os.umask(0o022)
    try:
        data = [{"id": "a", "input": "q", "context": [{"id": "d", "text": "t"}],
                 "reference_context_ids": ["d"]}]  # fmt: skip
        result = run_evals(data, [create_id_context_recall_scorer()],
                           results_path=tmp_path / "r.jsonl", progress=False)  # fmt: skip
        result.to_html(tmp_path / "r.html")
        merge_results(tmp_path / "m.jsonl", tmp_path / "r.jsonl")
        write_qrels(tmp_path / "q.txt", {"a": {"d": 1}})
        for name in ("r.html", "m.jsonl", "q.txt"):
            assert mode(tmp_path / name) == 0o644, name
    finally:
        os.umask(old)
