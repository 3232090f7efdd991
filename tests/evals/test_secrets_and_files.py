"""Secrets never reach a results file or the viewer; the viewer's token never reaches a
command line."""

from __future__ import annotations

import json
import os
import stat

from evals import run_evals
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import create_context_recall_scorer

SECRETS = ("AKIA-SECRET-VALUE-1", "AZ-TOKEN-VALUE-2", "BODY-KEY-VALUE-3", "HEADER-PASS-4")
ROW = {
    "id": "1",
    "input": "Where was Einstein born?",
    "ground_truth": "Einstein was born in Ulm.",
    "context": ["Einstein was born in Ulm."],
}


def test_judge_parameters_are_recorded_by_allow_list(tmp_path):
    from evals._view import ViewServer

    with FakeLLMServer() as server:
        judge = server.judge(
            aws_secret_access_key=SECRETS[0],
            azure_ad_token=SECRETS[1],
            extra_body={"api_key": SECRETS[2]},
            extra_headers={"X-Password": SECRETS[3]},
            max_tokens=300,
        )
        run_evals([ROW], [create_context_recall_scorer(judge)],
                  results_path=tmp_path / "r.jsonl", progress="none")  # fmt: skip
    text = (tmp_path / "r.jsonl").read_text()
    assert not [s for s in SECRETS if s in text]
    params = json.loads(text.splitlines()[0])["run"]["scorers"]["context-recall"]["judge"]["params"]
    assert params == {
        "temperature": 0.0,
        "max_tokens": 300,
        "aws_secret_access_key": "<not recorded>",
        "azure_ad_token": "<not recorded>",
        "extra_body": "<not recorded>",
        "extra_headers": {"X-Password": "<not recorded>"},
    }
    with ViewServer(tmp_path, port=0) as view:
        view.app.index.wait()
        served = json.dumps(view.app.run({"path": ["r.jsonl"]}))
    assert "r.jsonl" in served and not [s for s in SECRETS if s in served]


def test_judge_options_from_the_command_line_are_not_written(tmp_path, capsys):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(ROW) + "\n")
    with FakeLLMServer() as server:
        code = main(["run", str(data), "--scorer", "context-recall", "--model", "openai/fake-judge",
                     "--api-base", server.url, "--out", str(tmp_path / "r.jsonl"), "--no-progress",
                     "--option", f"judge.aws_secret_access_key={SECRETS[0]}"])  # fmt: skip
    assert code == 0, capsys.readouterr()
    assert SECRETS[0] not in (tmp_path / "r.jsonl").read_text()
    assert SECRETS[0] not in capsys.readouterr().out


def test_open_goes_through_a_private_page_not_the_command_line(monkeypatch):
    import webbrowser

    from evals.cli._view import open_in_browser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    url = "http://127.0.0.1:8765/?token=TOKEN-abc123"
    page = open_in_browser(url)
    try:
        (asked,) = opened
        assert "TOKEN-abc123" not in asked and asked == page.as_uri()
        assert "TOKEN-abc123" in page.read_text()
        assert stat.S_IMODE(os.stat(page).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(page.parent).st_mode) == 0o700
    finally:
        page.unlink()
        page.parent.rmdir()


def _app_db(path):
    import sqlite3

    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE files (name TEXT); INSERT INTO files VALUES ('payroll.xlsx');"
        "CREATE TABLE users (id INTEGER, name TEXT); INSERT INTO users VALUES (1, 'ada');"
    )
    db.commit()
    db.close()
    return path


def _rows(path, table):
    import sqlite3

    db = sqlite3.connect(path)
    try:
        return db.execute(f"SELECT * FROM {table}").fetchall()
    finally:
        db.close()


def _small_run(folder):
    from scorers import create_id_context_recall_scorer

    data = [{"id": str(i), "input": "q", "reference_context_ids": ["a"],
             "context": [{"id": "a", "text": "x"}]} for i in range(3)]  # fmt: skip
    run_evals(data, [create_id_context_recall_scorer()], results_path=folder / "good.jsonl",
              progress="none")  # fmt: skip
    return folder / "good.jsonl"


def test_the_index_writes_only_a_file_scorekit_made(tmp_path):
    from evals._view import ViewServer

    runs = tmp_path / "runs"
    runs.mkdir()
    _small_run(runs)
    app = _app_db(tmp_path / "app.db")
    before = app.read_bytes()
    (runs / ".scorekit-index.sqlite").symlink_to(app)
    with ViewServer(runs, port=0) as view:
        view.app.index.wait()
        assert [r["path"] for r in view.app.runs({})["runs"]] == ["good.jsonl"]
        view.app.index.rebuild()
        assert "is a link" in view.app.index.note
    assert app.read_bytes() == before and _rows(app, "files") == [("payroll.xlsx",)]
    (runs / ".scorekit-index.sqlite").unlink()
    _app_db(runs / ".scorekit-index.sqlite")  # another application's file under our name
    before = (runs / ".scorekit-index.sqlite").read_bytes()
    with ViewServer(runs, port=0) as view:
        view.app.index.wait()
        assert [r["path"] for r in view.app.runs({})["runs"]] == ["good.jsonl"]
        assert "another application's database" in view.app.index.note
    assert (runs / ".scorekit-index.sqlite").read_bytes() == before


def test_an_index_of_another_shape_is_rebuilt(tmp_path):
    import sqlite3

    from evals._view import ViewServer

    _small_run(tmp_path)
    db = sqlite3.connect(tmp_path / ".scorekit-index.sqlite")
    db.execute("CREATE TABLE files (path TEXT PRIMARY KEY, size INTEGER)")  # an older shape
    db.execute("INSERT INTO files VALUES ('good.jsonl', 1)")
    db.commit()
    db.close()
    with ViewServer(tmp_path, port=0) as view:
        view.app.index.wait()
        assert view.app.index.note == ""
        assert [r["path"] for r in view.app.runs({})["runs"]] == ["good.jsonl"]


def test_labels_in_another_application_s_database_or_out_of_the_folder_are_refused(tmp_path):
    import pytest

    from evals import LabelStore
    from evals._view import ViewServer
    from scorers import ConfigError

    runs = tmp_path / "runs"
    runs.mkdir()
    _small_run(runs)
    app = _app_db(runs / "app.db")
    before = app.read_bytes()
    with pytest.raises(ConfigError, match=r"not a scorekit labels database.*another application"):
        ViewServer(runs, port=0, labels=app)
    with pytest.raises(ConfigError, match="not a scorekit labels database"):
        LabelStore(app).save(
            __import__("evals").JudgeVerdict(scorer_id="context-recall", kind="claim",
                                             judge_model="m", prompt_version="1", text="c",
                                             supported=True), True)  # fmt: skip
    assert app.read_bytes() == before and not (runs / "app.db-wal").exists()
    with pytest.raises(ConfigError, match="leads out of the folder"):
        ViewServer(runs, port=0, labels=tmp_path / "elsewhere.sqlite")
    (runs / "link.sqlite").symlink_to(tmp_path / "elsewhere.sqlite")
    with pytest.raises(ConfigError, match="leads out of the folder"):
        ViewServer(runs, port=0, labels=runs / "link.sqlite")


def test_a_corrupt_labels_database_stops_only_what_needs_labels(tmp_path, capsys):
    run = tmp_path / "judged.jsonl"
    with FakeLLMServer() as server:
        run_evals([ROW], [create_context_recall_scorer(server.judge())], results_path=run,
                  progress="none")  # fmt: skip
    (tmp_path / "scorekit-labels.sqlite").write_text("not a database " * 200)
    assert main(["compare", str(run), str(run)]) == 0
    assert "judge agreement not shown" in capsys.readouterr().err
    assert main(["report", str(run), "--output", str(tmp_path / "r.html")]) == 0
    assert "judge agreement not shown" in capsys.readouterr().err
    assert main(["compare", str(run), str(run), "--min-agreement", "0.5"]) == 2
    assert "not a scorekit labels database" in capsys.readouterr().err


def test_one_malformed_results_file_hides_no_other_run(tmp_path):
    from evals._view import ViewServer

    good = _small_run(tmp_path)
    lines = good.read_text().splitlines()
    (tmp_path / "inf.jsonl").write_text(
        lines[0] + "\n" + lines[1].replace('"score":1.0', '"score":1e999') + "\n"
    )
    (tmp_path / "deep.jsonl").write_text(
        lines[0] + "\n" + '{"item": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    )
    with ViewServer(tmp_path, port=0) as view:
        view.app.index.wait()
        listed = view.app.runs({})
        json.dumps(listed, allow_nan=False)  # what the page gets is JSON
        assert [r["path"] for r in listed["runs"]] == ["good.jsonl"]
        assert set(listed["failed"]) == {"inf.jsonl", "deep.jsonl"}
        assert "nests deeper" in listed["failed"]["deep.jsonl"]
    with ViewServer(tmp_path, port=0) as view:  # the failures are remembered on restart
        view.app.index.wait()
        assert set(view.app.runs({})["failed"]) == {"inf.jsonl", "deep.jsonl"}


def test_only_credentials_are_redacted_never_a_word_of_the_answer(tmp_path):
    with FakeLLMServer() as server:
        judge = server.judge(extra_body={"keywords": "Einstein", "api_key": SECRETS[2]})
        result = run_evals([ROW], [create_context_recall_scorer(judge)], progress="none")
    claims = result.items[0].scorer_results["context-recall"].details["claims"]["claims"]
    assert claims == ["Einstein was born in Ulm."]  # "Einstein" is no credential


def test_a_change_the_file_does_not_record_is_named_as_such(tmp_path):
    from evals import compare_runs

    with FakeLLMServer() as server:
        for name, token in (("a", "TOKEN-ONE-1"), ("b", "TOKEN-TWO-2")):
            judge = server.judge(azure_ad_token=token)
            run_evals([ROW], [create_context_recall_scorer(judge)],
                      results_path=tmp_path / f"{name}.jsonl", progress="none")  # fmt: skip
    warnings = compare_runs(tmp_path / "a.jsonl", tmp_path / "b.jsonl").warnings
    assert (
        warnings
        == [
            "context-recall: judge settings that results files do not record (credentials, "
            "provider parameters)"
        ]
        or warnings == []
    )
    for name in ("a", "b"):
        assert "TOKEN-" not in (tmp_path / f"{name}.jsonl").read_text()


def test_the_index_is_no_labels_database(tmp_path):
    import pytest

    from evals._view import ViewServer
    from scorers import ConfigError

    _small_run(tmp_path)
    with ViewServer(tmp_path, port=0) as view:
        view.app.index.wait()
    index = tmp_path / ".scorekit-index.sqlite"
    before = _rows(index, "sqlite_master")
    with pytest.raises(ConfigError, match="not a scorekit labels database"):
        ViewServer(tmp_path, port=0, labels=index).app.store.save(
            __import__("evals").JudgeVerdict(scorer_id="context-recall", kind="claim",
                                             judge_model="m", prompt_version="1", text="c",
                                             supported=True), True)  # fmt: skip
    assert _rows(index, "sqlite_master") == before
