import io

from evals._progress import Progress


def test_progress_draws_counts_and_errors_when_enabled():
    stream = io.StringIO()
    bar = Progress(4, enabled=True, stream=stream)
    for error in (False, True, False, False):
        bar.advance(error)
    bar.close()
    text = stream.getvalue()
    assert "scorekit 4/4" in text and "100%" in text and "errors 1" in text
    assert text.endswith("\n")


def test_progress_is_off_when_the_stream_is_not_a_terminal():
    stream = io.StringIO()
    bar = Progress(2, stream=stream)
    bar.advance()
    bar.close()
    assert stream.getvalue() == ""
