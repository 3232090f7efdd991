"""Runs across processes or machines on Ray: one shard per task, merged at the end.

Each task builds its own scorers (so its own judge, limiter and cache handle), runs
`run_evals` on one shard (``shard=(i, n)``) into its own results file with
``resume=True``, and the driver merges the files with `merge_results`. Re-running after
a failure resumes every shard.

Ray is an optional extra (``pip install 'scorekit[ray]'``); a job array (Slurm,
Kubernetes) with ``scorekit run --shard "$INDEX/$COUNT"`` and ``scorekit merge`` does
the same without it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scorers import ConfigError, Scorer

from ._results import EvalResult
from ._run._shards import merge_results


def _run_shard(
    data: Any,
    make_scorers: Callable[[], Sequence[Scorer]],
    index: int,
    count: int,
    path: str,
    kwargs: dict[str, Any],
) -> dict[str, Any]:
    from ._run._runner import run_evals

    result = run_evals(
        data,
        make_scorers(),
        shard=(index, count),
        results_path=path,
        resume=True,
        progress=False,
        **kwargs,
    )
    return {"shard": index, "items": result.summary.items, "errors": result.summary.item_errors}


def run_evals_ray(
    data: str | os.PathLike[str] | Sequence[Any],
    make_scorers: Callable[[], Sequence[Scorer]],
    *,
    shards: int,
    out_dir: str | os.PathLike[str],
    num_cpus_per_shard: float = 1,
    **run_kwargs: Any,
) -> EvalResult:
    """Run ``data`` as ``shards`` Ray tasks and merge their results.

    Example:
        ```python
        import ray
        ray.init()                       # or ray.init(address="auto") on a cluster
        result = run_evals_ray("data.jsonl",
                               lambda: [create_context_recall_scorer("openai/gpt-4o-mini")],
                               shards=8, out_dir="runs/ray")
        ```

    Args:
        data: A path every worker can read, or a list of rows (sent to each task).
        make_scorers: Builds the scorers inside each task (a judge per task).
        shards: How many tasks (shards by id hash).
        out_dir: Where ``part-<i>.jsonl`` and the merged ``results.jsonl`` go.
        num_cpus_per_shard: Ray CPUs each task asks for.
        **run_kwargs: More `run_evals` arguments (``concurrency``, ``thresholds``, ...).

    Returns:
        An `EvalResult` over the merged items (``results_path``: the merged file).

    Raises:
        ConfigError: When ray is not installed, or for bad arguments.
    """
    try:
        import ray
    except ImportError:
        raise ConfigError("run_evals_ray needs ray: pip install 'scorekit[ray]'") from None
    if not isinstance(shards, int) or shards < 1:
        raise ConfigError(f"shards must be an integer >= 1; got {shards!r}")
    for name in ("shard", "results_path", "resume", "progress"):
        if name in run_kwargs:
            raise ConfigError(f"run_evals_ray sets {name} itself; do not pass it")
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(data, (str, os.PathLike)):
        data = str(Path(data).resolve())
    elif not isinstance(data, list):
        data = list(data)
    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=num_cpus_per_shard)(_run_shard)
    parts = [str(folder / f"part-{i}.jsonl") for i in range(shards)]
    ray.get(
        [task.remote(data, make_scorers, i, shards, parts[i], run_kwargs) for i in range(shards)]
    )
    merged_path = folder / "results.jsonl"
    if merged_path.exists():
        merged_path.unlink()  # rebuilt from the (resumed) parts
    items = merge_results(merged_path, *parts)
    from ._results import summarize

    scorer_ids = list(dict.fromkeys(sid for item in items for sid in item.scorer_results))
    summary = summarize(items, scorer_ids, 0.0)
    return EvalResult(
        scores={sid: s.mean for sid, s in summary.scorers.items()},
        summary=summary,
        items=items,
        results_path=str(merged_path),
        header=getattr(items, "header", None),
    )


__all__ = ["run_evals_ray"]
