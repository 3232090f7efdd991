"""Reading a results file's item lines in tests (its header lines left out)."""

from __future__ import annotations

from pathlib import Path


def item_lines(path: Path, keepends: bool = False) -> list[str]:
    """The lines of a results file that hold items."""
    lines = path.read_text().splitlines(keepends=keepends)
    return [line for line in lines if not line.startswith('{"run":')]


def header_lines(path: Path) -> list[str]:
    """The header lines of a results file."""
    return [line for line in path.read_text().splitlines() if line.startswith('{"run":')]
