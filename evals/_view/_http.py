"""The viewer's HTTP server: the standard library's threading server, a token on every
request, same-origin writes, nothing served from outside the folder.

Every request needs the token (``?token=`` in the address, or the
``X-Scorekit-Token`` header the page sends); writes need the header (a query token is
not enough) and, when the browser names one, an ``Origin`` equal to the server's own —
so no other site can label for you. The ``Host`` header must name the server (no DNS
rebinding). Pages carry a content security policy that runs only the viewer's own
script, and the script writes every string from the data as text, never as markup.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from scorers import ConfigError, DatasetError

from .._labels import LabelStore
from ._app import ViewApp
from ._index import RunIndex
from ._params import BadRequest, Encoded, NotFound

_STATIC = Path(__file__).parent / "static"
_ASSETS = {"view.js": "text/javascript", "view.css": "text/css"}
_APP_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_REPORT_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_GET = {
    "/api/runs": "runs",
    "/api/run": "run",
    "/api/items": "items",
    "/api/item": "item",
    "/api/facets": "facets",
    "/api/compare": "compare",
    "/api/moved": "moved",
    "/api/sample": "sample",
    "/api/data_set": "data_set",
}
_POST = {"/api/label": "label", "/api/review": "review", "/api/write": "write_data_set"}
MAX_BODY = 1 << 20


def _inside(root: Path, labels: Path) -> Path:
    """``labels`` when it stays inside ``root`` once links are followed."""
    where = labels if labels.is_absolute() else Path.cwd() / labels
    if not where.resolve().is_relative_to(root):
        raise ConfigError(
            f"--labels {labels} leads out of the folder {root}; keep the labels database in "
            "the folder of the runs it labels"
        )
    return labels


class ViewServer:
    """``scorekit view``: a local web app over a folder of results files.

    Use it as a context manager (or `start` / `stop`); `url` is the address to open,
    token included.

    Args:
        root: The folder of results files (searched recursively).
        host: The address to bind (default 127.0.0.1: this machine only).
        port: The port (0: any free one).
        labels: The labels database (default ``root/scorekit-labels.sqlite``): a file or a
            folder inside ``root`` (a path that leads out of it, links included, is
            refused), and scorekit's own labels database if it exists.
        token: The access token (default: a new random one).
        persist_index: Keep the index in ``root/.scorekit-index.sqlite``.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        labels: str | Path | None = None,
        token: str | None = None,
        persist_index: bool = True,
    ):
        index = RunIndex(root, persist=persist_index)
        store = LabelStore(index.root if labels is None else _inside(index.root, Path(labels)))
        store.labels()  # a database that is not scorekit's labels is refused now, untouched
        self.app = ViewApp(index, store)
        self.token = token or secrets.token_urlsafe(24)
        self._server = ThreadingHTTPServer((host, port), _handler(self))
        self._server.daemon_threads = True
        self.host, self.port = host, self._server.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        """``http://host:port``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def url(self) -> str:
        """The viewer's address with its token."""
        return f"{self.origin}/?token={self.token}"

    def allowed_hosts(self) -> set[str] | None:
        """The ``Host`` headers a request may carry (None: any, when serving on every
        interface, where the machine's own names are not known; the token still guards)."""
        if self.host in ("0.0.0.0", "::", ""):
            return None
        names = {self.host, "127.0.0.1", "localhost", "[::1]"}
        return {f"{name}:{self.port}" for name in names}

    def start(self) -> ViewServer:
        """Serve in a background thread."""
        self.app.index.scan()
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="scorekit-view", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted."""
        self.app.index.scan()
        self._server.serve_forever()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def __enter__(self) -> ViewServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler(server: ViewServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        view = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    view: ViewServer
    server_version = "scorekit-view"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _refuse(self, status: HTTPStatus, why: str) -> None:
        self._send(status, "application/json", json.dumps({"error": why}).encode())

    def _send(
        self,
        status: HTTPStatus,
        kind: str,
        body: bytes,
        policy: str = _APP_POLICY,
        etag: str | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        if etag is not None:
            self.send_header("ETag", etag)
        self.send_header("Content-Security-Policy", policy)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the page went away before its answer: nothing lost

    def _allowed(self, write: bool) -> bool:
        """The host, the token and (for writes) the origin; refuses the request if not."""
        hosts = self.view.allowed_hosts()
        if hosts is not None and self.headers.get("Host", "") not in hosts:
            self._refuse(HTTPStatus.FORBIDDEN, "unknown Host header")
            return False
        given = self.headers.get("X-Scorekit-Token", "")
        if not write and not given:
            given = parse_qs(urlsplit(self.path).query).get("token", [""])[0]
        if not hmac.compare_digest(given.encode(), self.view.token.encode()):
            self._refuse(
                HTTPStatus.FORBIDDEN,
                "missing or wrong token: open the address `scorekit view` printed",
            )
            return False
        origin = self.headers.get("Origin")
        own = {self.view.origin, f"http://{self.headers.get('Host', '')}"}
        if write and origin is not None and origin not in own:
            self._refuse(
                HTTPStatus.FORBIDDEN,
                f"cross-origin write refused: the page at {origin} is not this viewer's "
                f"({' or '.join(sorted(own))})",
            )
            return False
        return True

    def do_GET(self) -> None:
        if not self._allowed(write=False):
            return
        parts = urlsplit(self.path)
        params = parse_qs(parts.query)
        if parts.path == "/":
            page = (_STATIC / "view.html").read_text(encoding="utf-8")
            body = page.replace("{{token}}", self.view.token).encode()
            self._send(HTTPStatus.OK, "text/html", body)
        elif parts.path.startswith("/static/") and parts.path[8:] in _ASSETS:
            name = parts.path[8:]
            self._send(HTTPStatus.OK, _ASSETS[name], (_STATIC / name).read_bytes())
        elif parts.path == "/report":
            self._answer(lambda: self.view.app.report(params), page=True)
        elif parts.path == "/export":
            self._answer(
                lambda: self.view.app.export(params), page=True, kind="application/x-ndjson"
            )
        elif parts.path in _GET:
            self._answer(lambda: getattr(self.view.app, _GET[parts.path])(params))
        else:
            self._refuse(HTTPStatus.NOT_FOUND, "no such page")

    def do_POST(self) -> None:
        if not self._allowed(write=True):
            return
        route = _POST.get(urlsplit(self.path).path)
        if route is None:
            self._refuse(HTTPStatus.NOT_FOUND, "no such action")
            return
        declared = self.headers.get("Content-Length") or "0"
        if not (declared.isascii() and declared.isdigit()):
            self.close_connection = True
            self._refuse(HTTPStatus.BAD_REQUEST, "Content-Length must be a number of bytes")
            return
        length = int(declared)
        if self.headers.get_content_type() != "application/json" or length > MAX_BODY:
            self._refuse(HTTPStatus.BAD_REQUEST, "send one JSON object (at most 1 MiB)")
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._refuse(HTTPStatus.BAD_REQUEST, "the body is not JSON")
            return
        if not isinstance(body, dict):
            self._refuse(HTTPStatus.BAD_REQUEST, "send one JSON object")
            return
        self._answer(lambda: getattr(self.view.app, route)(body))

    def _answer(self, work: Any, page: bool = False, kind: str = "text/html") -> None:
        try:
            found = work()
        except NotFound as exc:
            self._refuse(HTTPStatus.NOT_FOUND, str(exc))
        except (BadRequest, ConfigError, DatasetError) as exc:
            self._refuse(HTTPStatus.BAD_REQUEST, str(exc))
        except Exception as exc:  # the server keeps serving; the page shows why
            print(f"scorekit view: {type(exc).__name__}: {exc}", file=sys.stderr)
            self._refuse(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(exc).__name__}: {exc}")
        else:
            if page:
                self._send(HTTPStatus.OK, kind, found.encode(), _REPORT_POLICY)
            else:
                if isinstance(found, Encoded):
                    data = found.text.encode()
                else:
                    data = json.dumps(
                        found, ensure_ascii=False, default=str, allow_nan=False
                    ).encode()
                # a page polling for changes gets "304: the same" and no body
                etag = f'"{hashlib.blake2b(data, digest_size=12).hexdigest()}"'
                if self.command == "GET" and self.headers.get("If-None-Match") == etag:
                    self._send(HTTPStatus.NOT_MODIFIED, "application/json", b"", etag=etag)
                else:
                    self._send(HTTPStatus.OK, "application/json", data, etag=etag)
