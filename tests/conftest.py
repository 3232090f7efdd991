"""Test-wide setup: no network, no user cache, fast retries."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.pop("OPENAI_API_KEY", None)


class _LitellmWorkerNoise(logging.Filter):
    """Drop asyncio's "Task was destroyed but it is pending!" for litellm's logging task.

    litellm starts a background logging task in every event loop that makes a call; the
    per-test loops of async tests close with it pending. scorekit's own loop stops it at
    exit (scorers._model._litellm.stop_litellm_logging); test loops are litellm's to clean up.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (
            "Task was destroyed but it is pending" in message
            and ("LoggingWorker" in message or "async_success_handler" in message)
        )


logging.getLogger("asyncio").addFilter(_LitellmWorkerNoise())

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point the default judge cache at a temporary folder for every test."""
    monkeypatch.setenv("SCOREKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def shared_data() -> Path:
    """``../shared/data`` (real labelled data sets); skips when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(
            f"../shared/data is absent ({SHARED_DATA}): this test reads real labelled data from it"
        )
    return SHARED_DATA
