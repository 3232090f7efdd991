"""Test-wide setup: no network, no user cache, fast retries."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.pop("OPENAI_API_KEY", None)

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
        pytest.skip(f"shared data folder {SHARED_DATA} is absent; these tests need it")
    return SHARED_DATA
