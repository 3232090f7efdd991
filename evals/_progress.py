"""Progress of a run: a small bar on stderr, or a notebook widget in Jupyter."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (an IPython ZMQ shell)."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _notebook_bar(total: int) -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with litellm's dependencies
        return None
    return tqdm(total=total, desc="scorekit", unit="item")


class Progress:
    """``done/total [#####.....] 50% 3.1 items/s ETA 12s errors 0`` redrawn in place, or
    a ``tqdm.auto`` bar in a Jupyter notebook.

    The rate and ETA count from the first finished item: whatever happened before it
    (litellm's import on the first model call takes seconds) would skew them.

    Args:
        total: Items to process.
        enabled: None to show it only when ``stream`` is a terminal or in a notebook.
        stream: Where to draw (stderr by default).
    """

    def __init__(self, total: int, enabled: bool | None = None, stream: TextIO | None = None):
        self.stream = stream or sys.stderr
        notebook = stream is None and in_notebook()
        self.enabled = (self.stream.isatty() or notebook) if enabled is None else enabled
        self.total = total
        self.done = 0
        self.errors = 0
        self.started = time.monotonic()
        self._first: float | None = None
        self._last_draw = 0.0
        self._widget = _notebook_bar(total) if self.enabled and notebook and total else None

    def advance(self, error: bool = False) -> None:
        """Count one finished item."""
        self.done += 1
        self.errors += int(error)
        now = time.monotonic()
        if self._first is None:
            self._first = now
        if self._widget is not None:
            if self.done == 1:
                self._widget.reset(total=self.total)  # rates count from here
            self._widget.update(1)
            if error:
                self._widget.set_postfix(errors=self.errors, refresh=False)
            return
        if self.enabled and (now - self._last_draw > 0.1 or self.done == self.total):
            self._last_draw = now
            self._draw(now)

    def rate(self, now: float | None = None) -> float | None:
        """Items per second since the first finished item (None before the second)."""
        if self._first is None or self.done < 2:
            return None
        elapsed = max((time.monotonic() if now is None else now) - self._first, 1e-9)
        return (self.done - 1) / elapsed

    def _draw(self, now: float) -> None:
        rate = self.rate(now)
        share = self.done / self.total if self.total else 1.0
        bar = "#" * int(share * 24)
        if rate:
            speed = f"{rate:.1f} items/s ETA {(self.total - self.done) / rate:.0f}s"
        else:
            speed = "- items/s ETA -"
        self.stream.write(
            f"\rscorekit {self.done}/{self.total} [{bar:<24}] {share:4.0%} {speed} "
            f"errors {self.errors} "
        )
        self.stream.flush()

    def close(self) -> None:
        """End the line (or close the notebook bar)."""
        if self._widget is not None:
            self._widget.close()
            return
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()
