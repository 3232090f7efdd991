"""TREC files: qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``)."""

from __future__ import annotations

import math
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from .._atomic import write_atomically
from .._caller import warn_user
from .._errors import DatasetError
from ._batch import MAX_GRADE

Qrels = dict[str, dict[str, float]]
"""``{query_id: {doc_id: grade}}``, pytrec_eval's shape."""
Run = dict[str, dict[str, float]]
"""``{query_id: {doc_id: score}}``, pytrec_eval's shape."""


class TrecRun(dict[str, dict[str, float]]):
    """What `load_run` returns: ``{query_id: {doc_id: score}}``, plus the run's tag.

    Attributes:
        runid: The tag of the file's last line (trec_eval's ``runid``).
        duplicates: ``{query_id: {doc_id: [score, ...]}}``: the other scores of
            documents listed again for a query (the mapping keeps the best). trec_eval
            refuses a document listed twice only where both copies fall within the
            evaluated depth of a judged query; `evaluate_ranking` does the same.
    """

    runid: str = ""
    duplicates: dict[str, dict[str, list[float]]]

    def __init__(self) -> None:
        super().__init__()
        self.duplicates = {}


_C_SPACE = re.compile(rb"[ \t\n\v\f\r]+")
"""What C's ``isspace`` calls whitespace: trec_eval's field separators. Unicode spaces
(NBSP, U+3000, U+2028...) and the ASCII separators 0x1c-0x1f are part of a field."""


def _lines(path: str | os.PathLike[str]) -> list[tuple[int, list[str]]]:
    """Each line's fields, split as trec_eval splits them: lines at ``\n`` only, fields at
    C whitespace; bytes that are not UTF-8 are kept (as surrogate escapes, written back
    as the same bytes), as trec_eval keeps any byte."""
    file = Path(path)
    if str(path) == "-":
        data = sys.stdin.buffer.read()
    elif not file.is_file():
        raise DatasetError(f"{file} does not exist or is not a file")
    else:
        data = file.read_bytes()
    data = data.removeprefix(b"\xef\xbb\xbf")
    found = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        fields = [f.decode("utf-8", "surrogateescape") for f in _C_SPACE.split(raw) if f]
        if fields and not fields[0].startswith("#"):  # trec_eval 10: comments
            found.append((number, fields))
    return found


def _number(file: str, number: int, field: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DatasetError(f"{file} line {number}: {field} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise DatasetError(f"{file} line {number}: {field} {text!r} is not a finite number")
    return value


_LEADING_INTEGER = re.compile(r"[+-]?\d+")


def _grade(file: str, number: int, text: str) -> int:
    """A grade as trec_eval reads it: the integer its text starts with (``2.5`` is 2)."""
    found = _LEADING_INTEGER.match(text)
    if found is None:
        raise DatasetError(f"{file} line {number}: grade {text!r} is not an integer")
    if abs(int(found.group())) > MAX_GRADE:
        raise DatasetError(
            f"{file} line {number}: grade {text!r} is beyond ±2**53, where numbers stop "
            "being exact; grades are small integers (0-3, say)"
        )
    if found.end() != len(text):
        warn_user(
            f"{file} line {number}: grade {text!r} read as {int(found.group())}, as "
            "trec_eval reads grades (integers)"
        )
    return int(found.group())


def load_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file: ``query_id iteration doc_id grade`` per line (blank lines
    and ``#`` comment lines skipped).

    Grades are integers, as trec_eval reads them: ``2.5`` is read as 2, with a warning.
    A negative grade means "in the pool, not judged" (trec_eval's -1 and -2 alike).

    Returns:
        ``{query_id: {doc_id: grade}}``.

    Raises:
        DatasetError: Naming the line of a malformed row, a grade that is not an
            integer, or a (query, document) pair judged twice (trec_eval refuses it too).
    """
    name = Path(path).name
    qrels: dict[str, dict[str, float]] = {}
    for number, parts in _lines(path):
        if len(parts) != 4:
            raise DatasetError(
                f"{name} line {number}: a qrels line has 4 fields (query_id iteration "
                f"doc_id grade), got {len(parts)}"
            )
        query, _, doc, grade = parts
        judged = qrels.setdefault(query, {})
        if doc in judged:
            raise DatasetError(
                f"{name} line {number}: document {doc!r} is judged twice for query "
                f"{query!r}; trec_eval refuses duplicate judgements too"
            )
        judged[doc] = _grade(name, number, grade)
    return qrels


def load_run(path: str | os.PathLike[str]) -> TrecRun:
    """Read a TREC run file: ``query_id Q0 doc_id rank score tag`` per line; as trec_eval
    reads it, fields after the sixth are ignored and ``#`` comment lines skipped.

    The rank column is ignored: documents are ranked by score (descending, ties by
    document id, descending), as trec_eval ranks them. ``path`` ``"-"`` reads standard
    input, as trec_eval does.

    Returns:
        ``{query_id: {doc_id: score}}`` (a `TrecRun`: ``runid`` is the last line's tag;
        a document listed twice keeps its best score here and its other scores in
        ``duplicates``).

    Raises:
        DatasetError: Naming the line of a malformed row.
    """
    name = "standard input" if str(path) == "-" else Path(path).name
    run = TrecRun()
    for number, parts in _lines(path):
        if len(parts) < 6:
            raise DatasetError(
                f"{name} line {number}: a run line has 6 fields (query_id Q0 doc_id rank "
                f"score tag), got {len(parts)}"
            )
        query, _, doc, _, score, run.runid = parts[:6]
        docs = run.setdefault(query, {})
        value = _number(name, number, "score", score)
        if doc in docs:
            again = run.duplicates.setdefault(query, {}).setdefault(doc, [])
            again.append(min(value, docs[doc]))
            value = max(value, docs[doc])
        docs[doc] = value
    return run


def write_qrels(path: str | os.PathLike[str], qrels: Mapping[str, Mapping[str, float]]) -> None:
    """Write ``qrels`` as a TREC qrels file (grades written as integers when whole), all
    at once (`write_atomically`): a failure never leaves a truncated file.

    Raises:
        ConfigError: When ``path`` cannot be written.
    """
    lines = []
    for query, docs in qrels.items():
        for doc, grade in docs.items():
            value = int(grade) if float(grade).is_integer() else grade
            lines.append(f"{query} 0 {doc} {value}\n")
    write_atomically(Path(path), "".join(lines).encode("utf-8", "surrogateescape"))
