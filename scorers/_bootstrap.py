"""The one bootstrap of scorekit: `bootstrap` resamples rows with replacement from a
seeded stream, `bootstrap_interval` reads the 95% percentile interval off its draws. Paired
tests, the judge-noise interval of sampled judges and every agreement interval use both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._power import ALPHA

if TYPE_CHECKING:
    import numpy as np
else:
    from ._lazy import np

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
BLOCK = 2_000_000
"""Resampled values held in memory at once."""


def bootstrap(
    statistic: Callable[..., Any],
    *arrays: Any,
    resamples: int = DEFAULT_RESAMPLES,
    rng: np.random.Generator | None = None,
    seed: int = DEFAULT_SEED,
    cells: int = BLOCK,
) -> Any:
    """The bootstrap distribution of ``statistic``: the rows of ``arrays`` (numpy arrays
    of one length ``n``) resampled with replacement ``resamples`` times.

    The resamples are drawn in blocks of at most ``cells`` values; for each block,
    ``statistic`` gets every array indexed by a ``(size, n)`` array of row indices (so
    each gains a leading resample axis) and returns one value per resample: an array of
    ``size``, or a dict of such arrays. The blocks' values are joined in draw order.

    Args:
        statistic: ``fn(*resampled) -> array | dict[str, array]``, vectorised over the
            leading axis.
        *arrays: The data, row-aligned.
        resamples: How many resamples.
        rng: The generator to draw from (so a caller's other draws can share its
            stream); default a new one from ``seed``.
        seed: The seed when ``rng`` is not given.
        cells: At most this many values (resamples × rows × a row's width) at once.

    Returns:
        An array of ``resamples`` values, or a dict of them. The draws do not depend on
        ``cells``: resample ``i`` takes the ``i``-th ``n`` indices of the stream.

    Raises:
        ValueError: Without rows.
    """
    if not arrays or not len(arrays[0]):
        raise ValueError("bootstrap needs at least one array with at least one row")
    rng = np.random.default_rng(seed) if rng is None else rng
    n = len(arrays[0])
    width = max(1, max(int(np.prod(a.shape[1:])) for a in arrays))
    block = max(1, cells // (n * width))
    parts: list[Any] = []
    for start in range(0, resamples, block):
        rows = rng.integers(0, n, size=(min(block, resamples - start), n))
        parts.append(statistic(*(a[rows] for a in arrays)))
    if parts and isinstance(parts[0], dict):
        return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    return np.concatenate(parts) if parts else np.empty(0)


def bootstrap_interval(values: Any) -> tuple[float, float] | None:
    """The 95% percentile interval of a bootstrap distribution, the one rule every interval
    of scorekit uses: the ``ceil(0.025 B)``-th smallest and largest of the ``B`` defined
    values (NaN resamples, e.g. a κ with one class, are left out); None when none is."""
    found = np.sort(np.asarray(values, dtype=np.float64))
    found = found[~np.isnan(found)]
    if not len(found):
        return None
    k = max(1, math.ceil(ALPHA / 2 * len(found)))
    return float(found[k - 1]), float(found[-k])
