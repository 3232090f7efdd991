"""Progress of a run: a bar on a terminal, a widget in Jupyter, plain lines in CI logs."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, Literal, TextIO

from scorers import ConfigError

ProgressMode = Literal["auto", "bar", "plain", "none"]
MODES: tuple[str, ...] = ("auto", "bar", "plain", "none")
PLAIN_INTERVAL = 10.0
"""Seconds between plain progress lines."""
AUTO_PLAIN_AFTER = 3.0
"""With ``auto`` and no terminal: a run still going after this many seconds gets lines."""


def progress_mode(value: Any) -> str:
    """``auto``, ``bar``, ``plain`` or ``none`` from a mode name or the older booleans
    (None: auto, True: bar, False: none).

    Raises:
        ConfigError: For anything else.
    """
    named = {None: "auto", True: "bar", False: "none"}
    if isinstance(value, bool) or value is None:
        return named[value]
    if value in MODES:
        return str(value)
    raise ConfigError(f"progress must be one of {', '.join(MODES)} (or True/False); got {value!r}")


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


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
    """How far a run is, in one of four modes:

    - ``bar``: ``done/total [#####.....] 50% 3.1 items/s ETA 12s errors 0`` redrawn in
      place (a ``tqdm.auto`` bar in a Jupyter notebook);
    - ``plain``: for logs with no terminal (CI), a line every `PLAIN_INTERVAL` seconds,
      the first one second after the start: ``scorekit progress: 120/1000 items, 2 errors,
      340 calls, $0.0123, 4.1 items/s, ETA 3m34s``, and a last one at the end;
    - ``auto`` (the default): ``bar`` on a terminal or in a notebook, else ``plain`` for a
      run still going after `AUTO_PLAIN_AFTER` seconds (short runs print nothing);
    - ``none``.

    The rate and ETA count from the first finished item: whatever happened before it
    (litellm's import on the first model call takes seconds) would skew them.

    Args:
        total: Items to process.
        enabled: The mode (``"auto"``, ``"bar"``, ``"plain"``, ``"none"``), or True (bar),
            False (none), None (auto).
        stream: Where to draw (stderr by default).
        interval: Seconds between plain lines.
        status: ``() -> str | None``: what the run is waiting for before its first item
            (e.g. litellm's import), shown until the first item finishes.
        unit: What is counted (``items``; `synthesize` counts the ``questions`` it has
            written, then the ``checks`` it has made).
    """

    def __init__(
        self,
        total: int,
        enabled: bool | str | None = None,
        stream: TextIO | None = None,
        interval: float = PLAIN_INTERVAL,
        status: Callable[[], str | None] | None = None,
        unit: str = "items",
    ):
        self.stream = stream or sys.stderr
        self.unit = unit
        mode = progress_mode(enabled)
        notebook = stream is None and in_notebook()
        first_line = 1.0
        self._always = mode == "plain"  # asked for: a last line even for a short run
        if mode == "auto":
            mode = "bar" if self.stream.isatty() or notebook else "plain"
            first_line = AUTO_PLAIN_AFTER
        self.mode = mode
        self.enabled = mode == "bar"
        self.total = total
        self.done = 0
        self.errors = 0
        self.calls = 0
        self.cost: float | None = 0.0
        self.started = time.monotonic()
        self._first: float | None = None
        self._last_draw = 0.0
        self._widget = _notebook_bar(total) if self.enabled and notebook and total else None
        self._stop = threading.Event()
        self._printed = False
        self._status = status
        self._lock = threading.Lock()
        self._width = 0
        if mode == "plain" and total:
            ticker = threading.Thread(
                target=self._tick, args=(first_line, interval), daemon=True, name="progress"
            )
            ticker.start()
        elif self.enabled and total and status is not None and self._widget is None:
            threading.Thread(target=self._redraw, daemon=True, name="progress").start()

    def _tick(self, first_line: float, interval: float) -> None:
        wait = first_line
        while not self._stop.wait(wait):
            self._line()
            wait = interval

    def _redraw(self) -> None:
        """Until the first item: the bar with what the run waits for, twice a second."""
        while not self._stop.wait(0.5) and self._first is None:
            if self.status() is not None:
                self._draw(time.monotonic())

    def status(self) -> str | None:
        """What the run waits for before its first item (None: nothing said)."""
        if self._first is not None or self._status is None:
            return None
        return self._status()

    def _line(self) -> None:
        rate = self.rate()
        if rate:
            pace = f"{rate:.1f} {self.unit}/s, ETA {_duration((self.total - self.done) / rate)}"
        else:
            pace = f"started {_duration(time.monotonic() - self.started)} ago"
            if (waiting := self.status()) is not None:
                pace += f", {waiting}"
        cost = "cost n/a" if self.cost is None else f"${self.cost:.4f}"
        with self._lock:
            self.stream.write(
                f"scorekit progress: {self.done}/{self.total} {self.unit}, {self.errors} errors, "
                f"{self.calls} calls, {cost}, {pace}\n"
            )
            self.stream.flush()
        self._printed = True

    def advance(
        self, error: bool = False, calls: int = 0, cost: float | None = 0.0, items: int = 1
    ) -> None:
        """Count a finished item (and the model calls it made, and their cost); ``items``:
        that many model-free items without error at once."""
        self.done += items
        self.errors += int(error)
        self.calls += calls
        self.cost = None if self.cost is None or cost is None else self.cost + cost
        now = time.monotonic()
        if self._first is None:
            self._first = now
        if self._widget is not None:
            if self.done == items:
                self._widget.reset(total=self.total)  # rates count from here
            self._widget.update(items)
            if error:
                self._widget.set_postfix(errors=self.errors, refresh=False)
            return
        if self.enabled and (now - self._last_draw > 0.1 or self.done >= self.total):
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
            speed = f"{rate:.1f} {self.unit}/s ETA {(self.total - self.done) / rate:.0f}s"
        else:
            speed = self.status() or f"- {self.unit}/s ETA -"
        line = f"\rscorekit {self.done}/{self.total} [{bar:<24}] {share:4.0%} {speed} "
        line += f"errors {self.errors} "
        with self._lock:
            self.stream.write(line.ljust(self._width))  # over a longer line drawn before
            self._width = len(line)
            self.stream.flush()

    def close(self) -> None:
        """End the line (or close the notebook bar; or print the last plain line)."""
        self._stop.set()
        if self.mode == "plain" and (self._printed or (self._always and self.total)):
            self._line()
            return
        if self._widget is not None:
            self._widget.close()
            return
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()


def waiting_for_litellm() -> str | None:
    """A `Progress` status: litellm's import, while it is under way."""
    from scorers import LiteLLMTransport

    if LiteLLMTransport.import_state().loading:
        return "importing litellm for the first model call (seconds, once per process)"
    return None
