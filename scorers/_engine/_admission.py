"""Admission under a cost cap: a job starts only when the started ones can still finish.

Without it, a run at ``concurrency`` N starts N items whose first calls use up the
budget, and none of them can make its second call: the cap is spent, nothing finished.
Here the first job runs alone; from then on a job costs at most what the dearest
finished job reserved, and a new one starts only if it and the rest of every started
job fit under the cap. When nothing is running and the next job does not fit, the run
stops with `BudgetExceededError` and keeps what finished.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from .._errors import BudgetExceededError
from .._model._limits import Budget, JobLedger, job_ledger


class Admission:
    """Gate for the jobs of one run with a budget."""

    def __init__(self, budget: Budget):
        self.budget = budget
        self.per_job: float | None = None  # the most a finished job reserved
        self.running: set[JobLedger] = set()
        self.changed = anyio.Condition()

    def _fits(self) -> bool:
        if self.per_job is None:
            return not self.running  # no estimate yet: one job at a time
        left = sum(max(0.0, self.per_job - ledger.reserved) for ledger in self.running)
        budget = self.budget
        return budget.spent + budget.reserved + left + self.per_job <= budget.max_cost

    @asynccontextmanager
    async def job(self) -> AsyncIterator[None]:
        """Wait until a job may start, then count its reservations as it runs.

        Raises:
            BudgetExceededError: When no job is running and the next one cannot fit.
        """
        async with self.changed:
            while not self._fits():
                if not self.running:
                    budget = self.budget
                    raise BudgetExceededError(
                        f"max_cost ${budget.max_cost:g} reached: ${budget.spent:.4f} spent, "
                        f"and an item costs up to about ${self.per_job or 0:.4f}; no new "
                        "item was started, every started item finished",
                        spent=budget.spent,
                        max_cost=budget.max_cost,
                    )
                await self.changed.wait()
            ledger = JobLedger()
            self.running.add(ledger)
        try:
            with job_ledger(ledger):
                yield
        finally:
            with anyio.CancelScope(shield=True):
                async with self.changed:
                    self.running.discard(ledger)
                    if ledger.reserved > 0:
                        self.per_job = max(self.per_job or 0.0, ledger.reserved)
                    self.changed.notify_all()
