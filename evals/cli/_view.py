"""``scorekit view``: serve a folder of results files as a local web app."""

from __future__ import annotations

import argparse
import html
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from scorers import ConfigError

PLACE = 110
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    view = commands.add_parser(
        "view", help="browse a folder of runs, compare them, label the judge's verdicts"
    )
    view.add_argument("folder", nargs="?", default=".", help="the folder of results files")
    view.add_argument("--port", type=int, default=8765, help="port (default 8765; 0: any)")
    view.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; the token is always required)",
    )
    view.add_argument("--open", action="store_true", help="open the viewer in a browser")
    view.add_argument(
        "--labels", metavar="PATH", help="labels database (default FOLDER/scorekit-labels.sqlite)"
    )
    view.add_argument(
        "--rebuild-index",
        action="store_true",
        help="forget FOLDER/.scorekit-index.sqlite and read every file again",
    )
    view.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._view import ViewServer

    folder = Path(args.folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a folder; give the folder of your results files")
    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port must be 0-65535; got {args.port}")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"scorekit: warning: serving on {args.host}: anyone who can reach it and has the "
            "token can read these runs and label them (the token is still required)",
            file=sys.stderr,
        )
    try:
        server = ViewServer(folder, host=args.host, port=args.port, labels=args.labels)
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
            "choose another --port (0: any free one)"
        ) from None
    if server.app.index.note:
        print(f"scorekit: warning: {server.app.index.note}", file=sys.stderr)
    if args.rebuild_index:
        server.app.index.rebuild()
    print(f"scorekit view: serving {folder.resolve()} at", flush=True)
    print(f"    {server.url}", flush=True)
    print("Ctrl-C stops it.", flush=True)
    opener = open_in_browser(server.url) if args.open else None
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        if opener is not None:
            shutil.rmtree(opener.parent, ignore_errors=True)
    return 0


def open_in_browser(url: str) -> Path:
    """Open ``url`` in a browser without putting its token on the browser's command line
    (which any local user can read in the process list): as Jupyter does, through a page
    in a folder only this user can read that sends the browser on to ``url``. Returns the
    page (removed when the viewer stops)."""
    import tempfile
    import webbrowser

    folder = Path(tempfile.mkdtemp(prefix="scorekit-view-"))  # mode 0700
    page = folder / "open.html"
    target = html.escape(url, quote=True)
    fd = os.open(page, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(
            "<!doctype html><html><head><meta charset='utf-8'>"
            f"<meta http-equiv='refresh' content='0;url={target}'>"
            "<title>scorekit view</title></head>"
            f"<body><p>Opening <a href='{target}'>scorekit view</a>...</p></body></html>"
        )
    webbrowser.open(page.as_uri())
    return page
