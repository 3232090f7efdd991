"""Files written whole or not at all."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from ._errors import ConfigError


def write_atomically(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` all at once: to a temporary file beside it, then renamed
    over it, so a failure never leaves a truncated or half-written file (and an existing
    file stays as it was). Missing folders are created.

    Raises:
        ConfigError: When the place cannot be written.
    """
    if path.is_dir():
        raise ConfigError(f"{path} is a directory; give a file path")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path
