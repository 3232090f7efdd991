"""The engine's garbage-collector policy while it scores many runs.

A run of thousands of items holds thousands of long-lived objects; each full collection
that scoring's own allocations trigger rescans all of them, which can cost more than the
scoring itself for cheap scorers. Nothing here leaks: objects are only moved between
generations, and reference counting frees everything as usual.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def frozen_gc() -> Iterator[None]:
    """Keep the objects that exist now (the run's inputs) out of the cyclic GC's scans.
    A no-op when the caller has frozen objects."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic GC for CPU-bound work that makes many objects and no cycles (the
    fast paths). Afterwards the objects made meanwhile move straight to the oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``), so that turning the GC back on
    does not rescan them all at once. A no-op when the GC is off already."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():  # nobody else's frozen objects to thaw
            gc.freeze()
            gc.unfreeze()
        gc.enable()
