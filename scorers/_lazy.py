"""numpy, imported on first use, so that ``import scorers`` stays fast.

numpy takes 0.1-0.15 s to import; most sessions that import scorekit only judge with a model
and never touch an array. Modules that compute with numpy write::

    if TYPE_CHECKING:
        import numpy as np
    else:
        from ._lazy import np

and use ``np`` as usual. The first attribute read imports numpy and copies its namespace onto
the stand-in, so later reads are plain module attribute lookups with no extra cost.
"""

from __future__ import annotations

import importlib
import types
from typing import Any


class _LazyModule(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        # Only called for names not yet in __dict__: the first read loads the real module.
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, name)


np = _LazyModule("numpy")
