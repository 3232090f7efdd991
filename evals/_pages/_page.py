"""The shell every scorekit page shares: its start (with the mark that lets a later run
replace the page, and only such a page), its style and script assets, and the writer."""

from __future__ import annotations

import html
import os
from pathlib import Path

from scorers._internal import write_atomically

_ASSETS = Path(__file__).parent / "report"
_MARK = "<meta name='generator' content='scorekit'>"
PAGE_START = f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>{_MARK}"


def asset(name: str) -> str:
    """The text of a page asset (``report.css``, ``report.js``)."""
    return (_ASSETS / name).read_text(encoding="utf-8")


def comparison_page(path: str | os.PathLike[str], title: str, body: str) -> Path:
    """A page holding ``body`` (a comparison's tables) in the report's style."""
    page = (
        f"{PAGE_START}"
        f"<title>{html.escape(title)}</title><style>{asset('report.css')}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{body}</body></html>"
    )
    return write_report(path, page)


def write_report(path: str | os.PathLike[str], html_text: str) -> Path:
    """Write a page (all at once: an existing file is replaced only by a whole page, and
    only when it is a page scorekit wrote); returns the path."""
    return write_atomically(Path(path), html_text.encode("utf-8"), _ours, "report page")


_EARLIER = b"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>"
"""How pages of scorekit versions before the mark start (then the title and the style)."""


def _ours(start: bytes) -> bool:
    """Whether a page is one scorekit wrote: the mark, or an earlier version's start
    followed by scorekit's own style sheet."""
    if _MARK.encode() in start:
        return True
    style = asset("report.css").encode()[:60]
    return start.startswith(_EARLIER) and b"</title><style>" + style in start
