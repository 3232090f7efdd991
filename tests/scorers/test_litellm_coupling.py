"""The litellm internals scorekit relies on, checked so that a litellm release that moves
them fails here, loudly, instead of silently losing the replacement (pyproject pins the
versions this passed on)."""

from __future__ import annotations

import asyncio
import functools
import inspect
from pathlib import Path

import pytest

from scorers._model._executor import InlineSetupExecutor, _is_litellm_setup
from scorers._model._litellm import TaskLoggingWorker, import_litellm

ROOT = Path(__file__).resolve().parents[2]


def test_our_logging_worker_replaced_litellms():
    import_litellm()
    from litellm.litellm_core_utils import logging_worker

    assert isinstance(logging_worker.GLOBAL_LOGGING_WORKER, TaskLoggingWorker), (
        "litellm's GLOBAL_LOGGING_WORKER was not replaced: litellm moved it; see "
        "scorers/_model/_litellm._own_logging_worker"
    )


def test_our_logging_worker_has_every_public_method_of_litellms():
    import_litellm()
    from litellm.litellm_core_utils import logging_worker

    theirs = {
        name
        for name, _ in inspect.getmembers(logging_worker.LoggingWorker, inspect.isfunction)
        if not name.startswith("_")
    }
    missing = theirs - set(dir(TaskLoggingWorker))
    assert not missing, f"litellm's LoggingWorker gained {sorted(missing)}: add them to ours"
    assert hasattr(logging_worker.LoggingWorker, "_flush_on_exit")  # the atexit hook we drop


def test_acompletion_hands_its_setup_to_the_default_executor_as_we_recognise_it(
    fake_llm_server,
):
    litellm = import_litellm()
    seen: list[bool] = []

    class Spy(InlineSetupExecutor):
        def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(_is_litellm_setup(fn))
            return super().submit(fn, *args, **kwargs)

    async def call() -> None:
        asyncio.get_running_loop().set_default_executor(Spy())
        await litellm.acompletion(
            model="openai/fake",
            api_base=fake_llm_server.url,
            api_key="sk-fake",
            messages=[{"role": "user", "content": "hi"}],
        )

    asyncio.run(call())
    assert True in seen, (
        "litellm.acompletion no longer hands partial(context.run, partial(completion, ...)) "
        "to the loop's executor: InlineSetupExecutor would silently stop inlining "
        "(scorers/_model/_executor.py)"
    )


def test_a_response_carries_its_cost_where_we_read_it(fake_llm_server):
    litellm = import_litellm()

    async def call():  # type: ignore[no-untyped-def]
        return await litellm.acompletion(
            model="openai/fake",
            api_base=fake_llm_server.url,
            api_key="sk-fake",
            messages=[{"role": "user", "content": "hi"}],
            input_cost_per_token=1e-6,
            output_cost_per_token=2e-6,
        )

    response = asyncio.run(call())
    assert isinstance(response._hidden_params.get("response_cost"), float)


def test_the_pin_is_declared():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = [d for d in project["dependencies"] if d.startswith("litellm")]
    assert pins and "<" in pins[0], "litellm needs an upper bound (its internals are relied on)"
    from importlib.metadata import version

    from packaging.specifiers import SpecifierSet

    assert version("litellm") in SpecifierSet(pins[0].removeprefix("litellm")), (
        "the installed litellm is outside the pinned range"
    )


def test_the_setup_check_refuses_other_partials():
    assert not _is_litellm_setup(functools.partial(print, "x"))
    assert not _is_litellm_setup(print)


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
