"""`read_corpus`: the passages a labelled set is written from, with stable ids.

Raw documents (a folder of ``.txt`` / ``.md`` files, or one such file) are cut into
passages: paragraphs (blank-line separated) packed in order up to ``max_chars``, a
longer paragraph split at sentence ends. A passage's id is ``<path>#<n>``: the file's
path under the folder and the passage's position in it, from 0. Tables of passages
(``.jsonl`` / ``.json`` / ``.csv`` / ``.parquet`` with ``id`` and ``text``) and lists
are taken as they are, with their own ids.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from scorers import Chunk, ConfigError, DatasetError

from .._files import FORMATS, Columns, read_rows, suffixes

DOCUMENT_SUFFIXES = (".txt", ".md", ".markdown")
MAX_CHARS = 1200
"""The default longest passage cut from a document, in characters."""

_ID_KEYS = ("id", "doc_id", "chunk_id")
_TEXT_KEYS = ("text", "content", "page_content")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def _pieces(paragraph: str, max_chars: int) -> Iterator[str]:
    """A paragraph longer than ``max_chars`` as sentence runs (a longer sentence cut at
    the last space before the limit)."""
    if len(paragraph) <= max_chars:
        yield paragraph
        return
    current = ""
    for sentence in (s for s in _SENTENCE_END.split(paragraph) if s.strip()):
        while len(sentence) > max_chars:
            cut = sentence.rfind(" ", 0, max_chars)
            cut = cut if cut > max_chars // 2 else max_chars
            if current:
                yield current
                current = ""
            yield sentence[:cut].strip()
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > max_chars:
            yield current
            current = ""
        current = f"{current} {sentence}" if current else sentence
    if current:
        yield current


def split_document(text: str, max_chars: int = MAX_CHARS) -> list[str]:
    """A document's passages: its paragraphs packed in order up to ``max_chars``; a
    Markdown heading stays with the paragraph after it."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    paragraphs = [p.strip() for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    passages: list[str] = []
    current = ""
    for paragraph in paragraphs:
        for piece in _pieces(paragraph, max_chars):
            heading_only = current.startswith("#") and "\n" not in current
            if current and not heading_only and len(current) + 2 + len(piece) > max_chars:
                passages.append(current)
                current = ""
            current = f"{current}\n\n{piece}" if current else piece
    if current:
        passages.append(current)
    return passages


def _documents(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found = [
        path
        for path in root.rglob("*")
        if path.is_file()
        and path.suffix.lower() in DOCUMENT_SUFFIXES
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
    ]
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def _document_passages(root: Path, max_chars: int) -> list[Chunk]:
    files = _documents(root)
    if not files:
        raise DatasetError(
            f"{root}: no {', '.join(DOCUMENT_SUFFIXES)} files in it; give a folder of "
            "documents or a .jsonl/.csv/.parquet of passages with 'id' and 'text'"
        )
    passages = []
    for path in files:
        name = path.name if path == root else path.relative_to(root).as_posix()
        try:
            text = path.read_text("utf-8-sig")  # a BOM is not part of the text
        except UnicodeDecodeError as exc:
            raise DatasetError(
                f"{name}: not UTF-8 text (byte {exc.start}); convert it, e.g. with iconv"
            ) from None
        for position, passage in enumerate(split_document(text, max_chars)):
            passages.append(
                Chunk(
                    id=f"{name}#{position}",
                    text=passage,
                    metadata={"source": name, "position": position},
                )
            )
    return passages


def _passage(where: str, row: Any, default_id: str | None, source: str | None) -> Chunk:
    if isinstance(row, Chunk):
        if row.id is None and default_id is None:
            raise DatasetError(f"{where}: a passage needs an id")
        return row if row.id is not None else row.model_copy(update={"id": default_id})
    if isinstance(row, str):
        if default_id is None:
            raise DatasetError(f"{where}: a passage row needs 'id' and 'text'; got a string")
        return Chunk(id=default_id, text=row, metadata={"source": source} if source else {})
    if not isinstance(row, Mapping):
        raise DatasetError(f"{where}: a passage is a string or {{'id', 'text'}}; got {row!r:.80}")
    data = dict(row)
    found_id = next((data.pop(k) for k in _ID_KEYS if k in data), default_id)
    text = next((data.pop(k) for k in _TEXT_KEYS if k in data), None)
    if found_id is None or not isinstance(text, str):
        raise DatasetError(
            f"{where}: a passage needs 'id' and 'text' (a string); got keys {sorted(row)}"
        )
    given = data.pop("metadata", None) or {}
    if not isinstance(given, Mapping):
        raise DatasetError(f"{where}: 'metadata' must be an object; got {given!r:.60}")
    metadata = dict(given) | data
    if source and "source" not in metadata:
        metadata["source"] = source
    try:
        return Chunk(id=found_id, text=text, metadata=metadata)
    except ValueError as exc:
        raise DatasetError(f"{where}: {exc}") from None


def _table_passages(path: Path) -> list[Chunk]:
    passages = []
    for where, row in read_rows(path, "corpus", Columns((), (*_ID_KEYS, *_TEXT_KEYS))):
        if isinstance(row, DatasetError):
            raise row
        passages.append(_passage(where, row, None, path.name))
    return passages


def read_corpus(
    corpus: str | os.PathLike[str] | Iterable[Any], *, max_chars: int = MAX_CHARS
) -> list[Chunk]:
    """The passages of ``corpus``, each a `scorers.Chunk` with a stable id.

    Args:
        corpus: A folder of ``.txt`` / ``.md`` documents (read recursively, hidden files
            skipped), one such file, a ``.jsonl`` / ``.json`` / ``.csv`` / ``.parquet``
            of passages (``id`` and ``text``; other fields go to ``metadata``), or a
            list of strings (ids ``p0``, ``p1``, ...), dicts or `Chunk`s.
        max_chars: The longest passage cut from a document (tables are not cut).

    Returns:
        The passages, in document order; ids are ``<path>#<n>`` for documents.

    Raises:
        DatasetError: For a missing path, no documents, text that is not UTF-8, a row
            without id or text, or two passages with one id.
    """
    if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 100:
        raise ConfigError(f"max_chars must be an integer >= 100; got {max_chars!r}")
    if isinstance(corpus, (str, os.PathLike)):
        path = Path(corpus)
        if not path.exists():
            raise DatasetError(f"corpus {path} does not exist")
        if path.is_file() and path.suffix.lower() in FORMATS:
            passages = _table_passages(path)
        elif path.is_dir() or path.suffix.lower() in DOCUMENT_SUFFIXES:
            passages = _document_passages(path, max_chars)
        else:
            raise DatasetError(
                f"{path}: unsupported corpus file type {path.suffix!r}; give a folder, a "
                f"document ({', '.join(DOCUMENT_SUFFIXES)}) or a table of passages "
                f"({suffixes()})"
            )
    elif isinstance(corpus, Mapping):
        raise DatasetError("corpus must be a path or a list of passages, not a dict")
    else:
        passages = [
            _passage(f"corpus item {i + 1}", row, f"p{i}", None) for i, row in enumerate(corpus)
        ]
    _check_ids(passages)
    return passages


def copies(passages: Sequence[Chunk]) -> list[list[int]]:
    """Per passage, the positions of every passage with the same text, whitespace aside
    (itself included, in corpus order): one entry for a passage without a copy."""
    keys = [" ".join(passage.text.split()) for passage in passages]
    groups: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        groups.setdefault(key, []).append(index)
    return [groups[key] for key in keys]


def _check_ids(passages: list[Chunk]) -> None:
    if not passages:
        raise DatasetError("the corpus has no passages")
    seen: set[str] = set()
    repeated = []
    for passage in passages:
        if str(passage.id) in seen:
            repeated.append(str(passage.id))
        seen.add(str(passage.id))
    if repeated:
        shown = ", ".join(repr(r) for r in repeated[:5])
        raise DatasetError(f"passage ids must be unique; repeated: {shown}")
