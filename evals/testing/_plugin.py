"""The pytest plugin (entry point ``scorekit``): the ``fake_llm_server`` fixture, the
``scorekit`` marker and the end-of-session table of `assert_score` results.

Loaded by every pytest run once scorekit is installed, so it imports nothing of
scorekit until a test asks for it (the collector it reads is plain Python).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ._collector import COLLECTOR

if TYPE_CHECKING:
    from ._server import FakeLLMServer


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("scorekit")
    group.addoption(
        "--scorekit-results",
        metavar="PATH",
        default=None,
        help="write the session's assert_score results to PATH (a results file for "
        "`scorekit report`)",
    )


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "scorekit: a test that scores a RAG pipeline with scorekit (selectable)"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: Any) -> None:
    COLLECTOR.current_test = item.nodeid


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: hand the records over
        workeroutput["scorekit"] = COLLECTOR.dump()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist's controller: take in a finished worker's records."""
    COLLECTOR.load(getattr(node, "workeroutput", {}).get("scorekit", "[]"))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    if not COLLECTOR.records or getattr(config, "workeroutput", None) is not None:
        return
    terminalreporter.write_sep("-", "scorekit scores")
    terminalreporter.write_line(COLLECTOR.table())
    terminalreporter.write_line("")
    terminalreporter.write_line(COLLECTOR.by_test())
    path = config.getoption("--scorekit-results", default=None)
    if path:
        COLLECTOR.write(path)
        terminalreporter.write_line(f"scorekit: {len(COLLECTOR.records)} results written to {path}")


@pytest.fixture
def fake_llm_server() -> Iterator[FakeLLMServer]:
    """A running `FakeLLMServer` with the rule-based judge, stopped after the test."""
    from ._server import FakeLLMServer

    with FakeLLMServer() as server:
        yield server
