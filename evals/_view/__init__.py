"""``scorekit view``: a local web app over a folder of runs — the runs and their trend,
any run's items and report, comparisons, and people's labels on the judge's verdicts."""

from ._http import ViewServer
from ._index import RunIndex

__all__ = ["RunIndex", "ViewServer"]
