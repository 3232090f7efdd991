import io
import time

import pytest

from evals._run._progress import Progress, progress_mode
from scorers import ConfigError


def test_progress_draws_counts_and_errors_when_enabled():
    stream = io.StringIO()
    bar = Progress(4, enabled=True, stream=stream)
    for error in (False, True, False, False):
        bar.advance(error)
    bar.close()
    text = stream.getvalue()
    assert "scorekit 4/4" in text and "100%" in text and "errors 1" in text
    assert text.endswith("\n")


def test_a_short_run_without_a_terminal_prints_nothing():
    stream = io.StringIO()
    bar = Progress(2, stream=stream)  # auto: plain lines only after a few seconds
    assert bar.mode == "plain"
    bar.advance()
    bar.close()
    assert stream.getvalue() == ""


def _wait_for(predicate, limit=10.0):
    deadline = time.monotonic() + limit
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


@pytest.mark.slow
def test_plain_lines_for_logs_count_items_errors_calls_cost_and_pace():
    stream = io.StringIO()
    bar = Progress(10, "plain", stream=stream, interval=0.05)
    bar.advance(calls=3, cost=0.002)
    bar.advance(error=True, calls=2, cost=0.001)
    bar.advance(calls=1, cost=0.0005)
    # the first line comes about a second after the start, then one per interval
    assert _wait_for(lambda: stream.getvalue().count("\n") >= 2)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines[-1].startswith("scorekit progress: 3/10 items, 1 errors, 6 calls, $0.0035, ")
    assert "items/s, ETA " in lines[-1]
    assert all(line.startswith("scorekit progress: ") for line in lines)


def test_plain_says_when_a_cost_is_unknown_and_prints_a_last_line_even_when_short():
    stream = io.StringIO()
    bar = Progress(2, "plain", stream=stream)
    bar.advance(calls=1, cost=None)
    bar.close()
    (line,) = stream.getvalue().splitlines()
    assert line.startswith("scorekit progress: 1/2 items, 0 errors, 1 calls, cost n/a, ")


def test_progress_modes_and_their_older_spellings():
    assert [progress_mode(v) for v in (None, True, False, "plain")] == [
        "auto",
        "bar",
        "none",
        "plain",
    ]
    with pytest.raises(ConfigError, match="progress must be one of auto, bar, plain, none"):
        progress_mode("loud")
    silent = io.StringIO()
    bar = Progress(3, "none", stream=silent)
    bar.advance()
    bar.close()
    assert silent.getvalue() == ""


def test_the_cli_and_run_evals_take_a_progress_mode(tmp_path, capsys):
    import json

    from evals import run_evals
    from evals.cli import main
    from scorers import create_id_context_recall_scorer

    data = tmp_path / "data.jsonl"
    rows = [
        {
            "id": str(i),
            "input": "q",
            "context": [{"id": "a", "text": "t"}],
            "reference_context_ids": ["a"],
        }
        for i in range(3)
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["run", str(data), "--scorer", "id-context-recall", "--progress", "plain"]) == 0
    err = capsys.readouterr().err
    assert "scorekit progress: 3/3 items, 0 errors, 0 calls, $0.0000, " in err
    with pytest.raises(ConfigError, match="progress must be one of"):
        run_evals(rows, [create_id_context_recall_scorer()], progress="loud")


def test_what_the_run_waits_for_shows_until_the_first_item():
    stream = io.StringIO()
    waiting = ["importing litellm for the first model call"]
    bar = Progress(3, "plain", stream=stream, interval=60, status=lambda: waiting[0])
    bar._line()
    assert "importing litellm for the first model call" in stream.getvalue()
    bar.advance()
    bar._line()
    bar.close()
    last = stream.getvalue().splitlines()[-1]
    assert "1/3 items" in last and "importing" not in last  # the first item ends the wait


@pytest.mark.slow
def test_the_bar_is_redrawn_with_the_wait_before_any_item():
    stream = io.StringIO()
    bar = Progress(3, "bar", stream=stream, status=lambda: "importing litellm")
    assert _wait_for(lambda: "importing litellm" in stream.getvalue(), limit=3.0)
    bar.advance()
    bar.close()
    last = stream.getvalue().split("\r")[-1]
    assert last.startswith("scorekit 1/3") and "importing" not in last
    assert len(last.rstrip("\n")) >= len(stream.getvalue().split("\r")[-2])  # blanked over
