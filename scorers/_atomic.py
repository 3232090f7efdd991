"""Files written whole or not at all."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from ._errors import ConfigError

SAME_CONTENT = "same content"


def write_atomically(
    path: Path,
    data: bytes,
    replaces: Callable[[bytes], bool] | Literal["same content"] | None = None,
    kind: str = "file",
) -> Path:
    """Write ``data`` to ``path`` all at once: to a temporary file beside it, then renamed
    over it, so a failure never leaves a truncated or half-written file (and an existing
    file stays as it was). Missing folders are created. The file gets the mode a plain
    ``open(path, "w")`` would give it: an existing file's own, else ``0o666`` less the
    umask (never the temporary file's ``0o600``).

    With ``replaces``, an existing non-empty file is replaced only when it is one this
    writer wrote: ``replaces(its first 4 KiB)`` is true, or, with ``"same content"`` (for
    files that cannot carry a mark of their own), it holds exactly ``data``. A file
    scorekit did not write is never replaced.

    Raises:
        ConfigError: When the place cannot be written, or holds a file that ``replaces``
            does not recognise (``kind`` names what was expected).
    """
    if path.is_dir():
        raise ConfigError(f"{path} is a directory; give a file path")
    if replaces is not None and not _replaceable(path, data, replaces):
        raise ConfigError(
            f"{path} exists and is not a {kind} that scorekit wrote"
            + (" (nor identical to this one)" if replaces == SAME_CONTENT else "")
            + "; it was left as it was. Write to another path, or remove it first"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = _mode_for(path)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
                os.fchmod(out.fileno(), mode)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _replaceable(path: Path, data: bytes, replaces: Callable[[bytes], bool] | str) -> bool:
    try:
        size = path.stat().st_size
        if size == 0:
            return True
        if replaces == SAME_CONTENT:
            return size == len(data) and path.read_bytes() == data
        with path.open("rb") as handle:
            start = handle.read(4096)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return callable(replaces) and replaces(start)


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask: read where the system shows it (Linux), else set and put
    back (a moment in which another thread's new file would get no umask)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    umask = os.umask(0)
    os.umask(umask)
    return umask
