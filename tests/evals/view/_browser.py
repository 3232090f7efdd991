"""Headless Chromium driven over the DevTools protocol: open pages, run JavaScript in
them, wait for what they show."""

from __future__ import annotations

import contextlib
import itertools
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="headless Chromium not installed (apt-get install -y chromium)"
)


class Tab:
    """One page of the browser."""

    def __init__(self, socket_url: str):
        import websocket

        self._socket = websocket.create_connection(socket_url, timeout=60, suppress_origin=True)
        self._ids = itertools.count(1)
        self.errors: list[str] = []
        self.call("Runtime.enable")
        self.call("Page.enable")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        self._socket.send(json.dumps({"id": number, "method": method, "params": params}))
        while True:
            message = json.loads(self._socket.recv())
            if message.get("method") == "Runtime.exceptionThrown":
                self.errors.append(json.dumps(message["params"]["exceptionDetails"])[:500])
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(message["error"])
                return message.get("result", {})

    def js(self, expression: str) -> Any:
        """The value of ``expression`` (awaited when it is a promise)."""
        found = self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in found:
            raise RuntimeError(json.dumps(found["exceptionDetails"])[:800])
        return found["result"].get("value")

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def wait(self, expression: str, timeout: float = 30.0) -> Any:
        """Poll until ``expression`` is truthy; its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {expression}")

    def ready(self, where: str, timeout: float = 30.0) -> None:
        """Wait for the viewer to draw the page of ``where`` (``/``, ``/run/...``)."""
        self.wait(
            f"document.body && document.body.getAttribute('data-ready') === {where!r}", timeout
        )

    def screenshot(self, path: Path, width: int = 1280, height: int = 900) -> None:
        import base64

        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self._socket.close()


class Browser:
    """A headless Chromium of its own profile; `tab()` opens a page."""

    def __init__(self) -> None:
        assert BROWSER is not None
        self._profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        self._process = subprocess.Popen(
            [
                BROWSER,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-port=0",
                f"--user-data-dir={self._profile.name}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = Path(self._profile.name, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            if time.monotonic() > deadline or self._process.poll() is not None:
                raise RuntimeError("Chromium did not start")
            time.sleep(0.05)
        self.port = int(port_file.read_text().split()[0])

    def tab(self) -> Tab:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/json/new?about:blank", method="PUT"
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            target = json.loads(response.read())
        return Tab(target["webSocketDebuggerUrl"])

    def close(self) -> None:
        self._process.kill()
        self._process.wait(timeout=30)
        self._profile.cleanup()


def start_view(folder: Path) -> tuple[subprocess.Popen, str]:
    """``scorekit view FOLDER --port 0`` in its own process; it and its address."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "evals.cli", "view", str(folder), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    for _ in range(3):
        line = proc.stdout.readline()
        if "token=" in line:
            return proc, line.strip()
    proc.kill()
    raise AssertionError(f"no address printed: {proc.stderr.read() if proc.stderr else ''}")


def shot(tab: Tab, name: str, height: int = 900) -> None:
    """The page as the docs' screenshot ``name``.png, when ``SCOREKIT_SCREENSHOTS`` names
    a folder (``SCOREKIT_SCREENSHOTS=docs/img pytest tests/evals/view`` renews docs/view.md's
    pictures); otherwise nothing."""
    import os

    folder = os.environ.get("SCOREKIT_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        tab.screenshot(Path(folder) / f"{name}.png", height=height)


@contextlib.contextmanager
def viewing(folder: Path) -> Iterator[str]:
    """``scorekit view FOLDER`` in its own process while the block runs; its address.
    The process is killed after (as a crash would: nothing may depend on a clean exit)."""
    proc, url = start_view(folder)
    try:
        yield url
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
