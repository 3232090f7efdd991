"""A small progress bar on stderr (no dependency)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``done/total [#####.....] 50% 3.1 items/s ETA 12s errors 0`` redrawn in place.

    Args:
        total: Items to process.
        enabled: None to show it only when ``stream`` is a terminal.
        stream: Where to draw (stderr by default).
    """

    def __init__(self, total: int, enabled: bool | None = None, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = total
        self.done = 0
        self.errors = 0
        self.started = time.monotonic()
        self._last_draw = 0.0

    def advance(self, error: bool = False) -> None:
        """Count one finished item."""
        self.done += 1
        self.errors += int(error)
        now = time.monotonic()
        if self.enabled and (now - self._last_draw > 0.1 or self.done == self.total):
            self._last_draw = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        share = self.done / self.total if self.total else 1.0
        bar = "#" * int(share * 24)
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        self.stream.write(
            f"\rscorekit {self.done}/{self.total} [{bar:<24}] {share:4.0%} "
            f"{rate:.1f} items/s ETA {eta:.0f}s errors {self.errors} "
        )
        self.stream.flush()

    def close(self) -> None:
        """End the line."""
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()
