"""The pytest plugin (entry point ``scorekit``): the ``fake_llm_server`` fixture.

Loaded by every pytest run once scorekit is installed, so it imports nothing of
scorekit until a test asks for the fixture.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ._server import FakeLLMServer


@pytest.fixture
def fake_llm_server() -> Iterator[FakeLLMServer]:
    """A running `FakeLLMServer` with the rule-based judge, stopped after the test."""
    from ._server import FakeLLMServer

    with FakeLLMServer() as server:
        yield server
