"""The inline-setup executor on scorekit's own event loop."""

from __future__ import annotations

import asyncio
import functools
import threading

import pytest

from scorers._model import _executor
from scorers._model._executor import InlineSetupExecutor
from scorers._sync import run_sync


async def _loop_executor() -> InlineSetupExecutor:
    executor = asyncio.get_running_loop()._default_executor  # type: ignore[attr-defined]
    assert isinstance(executor, InlineSetupExecutor)
    return executor


def test_litellm_setup_runs_inline_on_the_sync_loop(fake_llm_server):
    """The sync loop's executor is an `InlineSetupExecutor`; a fresh one (the shared one
    may have stopped inlining after slow setups earlier in the process) inlines both."""
    judge = fake_llm_server.judge(cache=False)
    run_sync(_loop_executor)

    async def calls() -> InlineSetupExecutor:
        loop = asyncio.get_running_loop()
        executor = InlineSetupExecutor()
        loop.set_default_executor(executor)
        try:
            await judge.chat([{"role": "user", "content": "hi"}])
            await judge.chat([{"role": "user", "content": "again"}])
        finally:
            _executor.install()
        return executor

    executor = run_sync(calls)
    assert executor.inlined == 2
    assert len(fake_llm_server.requests) == 2


def test_other_work_still_runs_on_threads():
    async def where() -> tuple[threading.Thread, threading.Thread]:
        loop = asyncio.get_running_loop()
        return threading.current_thread(), await loop.run_in_executor(
            None, threading.current_thread
        )

    loop_thread, worker_thread = run_sync(where)
    assert worker_thread is not loop_thread
    assert worker_thread.name.startswith("scorekit-executor")


def test_a_provider_that_blocks_in_setup_stops_being_inlined(fake_llm_server, monkeypatch):
    judge = fake_llm_server.judge(cache=False)

    async def calls() -> InlineSetupExecutor:
        loop = asyncio.get_running_loop()
        executor = InlineSetupExecutor()
        loop.set_default_executor(executor)
        try:
            for i in range(_executor.SLOW_SETUPS_ALLOWED + 2):
                await judge.chat([{"role": "user", "content": f"call {i}"}])
        finally:
            _executor.install()  # put a fresh one back for the other tests
        return executor

    monkeypatch.setattr(_executor, "SLOW_SETUP_S", -1.0)  # every setup counts as slow
    executor = run_sync(calls)
    assert executor.slow_setups == _executor.SLOW_SETUPS_ALLOWED
    assert executor.inlined == _executor.SLOW_SETUPS_ALLOWED  # the rest went to threads
    assert len(fake_llm_server.requests) == _executor.SLOW_SETUPS_ALLOWED + 2


def test_exceptions_from_an_inline_setup_reach_the_caller():
    import contextvars

    from scorers._model._litellm import import_litellm as _import_litellm

    main = _import_litellm().main
    setup = functools.partial(
        contextvars.copy_context().run, functools.partial(main.completion, no_such_argument=1)
    )
    executor = InlineSetupExecutor()
    future = executor.submit(setup)
    assert executor.inlined == 1 and future.done()
    with pytest.raises(TypeError):
        future.result()
    executor.shutdown()
