"""``scorekit report``: one self-contained HTML page of a results file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from scorers import ConfigError

from ._output import EXIT_OK

PLACE = 80
"""Where the command stands in ``scorekit --help``."""


def add(commands: Any) -> None:
    """Add the subcommand's parser to ``commands``."""
    report = commands.add_parser(
        "report", help="one self-contained HTML page of a results file (no network)"
    )
    report.add_argument("results", help="results file (--out of `run`)")
    report.add_argument("-o", "--output", help="HTML file to write (default: RESULTS.html)")
    report.add_argument("--compare", metavar="BASELINE", help="a baseline results file")
    report.add_argument("--no-prompts", action="store_true", help="leave prompts out")
    report.add_argument("--title", default="scorekit report")
    report.add_argument(
        "--labels",
        metavar="PATH",
        help="people's labels of the judge's verdicts, shown as agreement (default: "
        "scorekit-labels.sqlite beside RESULTS)",
    )
    report.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .._agreement._agreement import shown_agreements
    from .._pages._page import write_report
    from .._results import read_results
    from .._results._html import render_report

    items = read_results(args.results)
    baseline = read_results(args.compare) if args.compare else None
    output = Path(args.output) if args.output else Path(args.results).with_suffix(".html")
    if output.is_dir():
        raise ConfigError(f"--output {output} is a directory; give a file path")
    agreement = [a.line() for a in shown_agreements(items, args.labels, needed=False)]
    page = render_report(
        items,
        baseline=baseline,
        prompts=not args.no_prompts,
        title=args.title,
        agreement=agreement,
    )
    try:
        written = write_report(output, page)
    except OSError as exc:
        raise ConfigError(f"cannot write --output {output}: {exc.strerror or exc}") from None
    print(f"scorekit: wrote {written} ({len(items)} items, {written.stat().st_size:,} bytes)")
    return EXIT_OK
