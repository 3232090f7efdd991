"""TREC files: qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from .._atomic import write_atomically
from .._errors import DatasetError

Qrels = dict[str, dict[str, float]]
"""``{query_id: {doc_id: grade}}``, pytrec_eval's shape."""
Run = dict[str, dict[str, float]]
"""``{query_id: {doc_id: score}}``, pytrec_eval's shape."""


class TrecRun(dict[str, dict[str, float]]):
    """What `load_run` returns: ``{query_id: {doc_id: score}}``, plus the run's tag.

    Attributes:
        runid: The tag of the file's first line (trec_eval's ``runid``).
    """

    runid: str = ""


def _lines(path: str | os.PathLike[str]) -> list[tuple[int, list[str]]]:
    file = Path(path)
    if not file.is_file():
        raise DatasetError(f"{file} does not exist or is not a file")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{file}: not valid UTF-8 at byte offset {exc.start}") from None
    return [
        (n, line.split())
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")  # trec_eval 10: comments
    ]


def _number(file: str, number: int, field: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise DatasetError(f"{file} line {number}: {field} {text!r} is not a number") from None


def load_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file: ``query_id iteration doc_id grade`` per line (blank lines
    and ``#`` comment lines skipped).

    Returns:
        ``{query_id: {doc_id: grade}}``; a repeated (query, document) pair keeps the
        last grade, as trec_eval does.

    Raises:
        DatasetError: Naming the line of a malformed row.
    """
    name = Path(path).name
    qrels: Qrels = {}
    for number, parts in _lines(path):
        if len(parts) != 4:
            raise DatasetError(
                f"{name} line {number}: a qrels line has 4 fields (query_id iteration "
                f"doc_id grade), got {len(parts)}"
            )
        query, _, doc, grade = parts
        qrels.setdefault(query, {})[doc] = _number(name, number, "grade", grade)
    return qrels


def load_run(path: str | os.PathLike[str]) -> TrecRun:
    """Read a TREC run file: ``query_id Q0 doc_id rank score tag`` per line; as trec_eval
    reads it, fields after the sixth are ignored and ``#`` comment lines skipped.

    The rank column is ignored: documents are ranked by score (descending, ties by
    document id, descending), as trec_eval ranks them.

    Returns:
        ``{query_id: {doc_id: score}}`` (a `TrecRun`, whose ``runid`` is the tag).

    Raises:
        DatasetError: Naming the line of a malformed row or a document listed twice for
            one query.
    """
    name = Path(path).name
    run = TrecRun()
    for number, parts in _lines(path):
        if len(parts) < 6:
            raise DatasetError(
                f"{name} line {number}: a run line has 6 fields (query_id Q0 doc_id rank "
                f"score tag), got {len(parts)}"
            )
        query, _, doc, _, score, tag = parts[:6]
        if not run:
            run.runid = tag
        docs = run.setdefault(query, {})
        if doc in docs:
            raise DatasetError(
                f"{name} line {number}: document {doc!r} is listed twice for {query!r}"
            )
        docs[doc] = _number(name, number, "score", score)
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
    write_atomically(Path(path), "".join(lines).encode("utf-8"))
