"""``python -m evals.testing``: serve the rule-based judge (used by the benchmarks)."""

from __future__ import annotations

import threading

from ._server import FakeLLMServer


def main(argv: list[str] | None = None) -> None:
    """``python -m evals.testing --latency 0.2``: serve the rule-based judge until killed,
    printing the base URL on the first line (used by the benchmarks)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m evals.testing")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args(argv)
    with FakeLLMServer(latency=args.latency) as server:
        print(server.url, flush=True)
        threading.Event().wait()


if __name__ == "__main__":  # pragma: no cover
    main()
