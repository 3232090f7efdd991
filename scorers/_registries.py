"""Every extension point of scorekit as one kind of registry: named entries that describe
themselves, scorekit's own and those of installed packages, found the same way.

The kinds are scorers, ranking measures, file formats, context extractors, fast paths
and CLI commands (`REGISTRIES`). Each registry is a read-only mapping of name → entry.
`Registry.load` makes it whole on first use: scorekit's own entries (a module import
registers them), then every module that a ``scorekit.<kind>`` entry point names — an
installed package lists, in its ``pyproject.toml``:

    [project.entry-points."scorekit.measures"]
    my_measures = "my_package.measures"   # a module that calls register_measure(...)

A module that cannot be imported, raises, calls `sys.exit`, or registers a name another
holds is reported on stderr and skipped; the others still load.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ._errors import ConfigError

T = TypeVar("T")

ENTRY_POINT_PREFIX = "scorekit."
"""Entry point groups are ``scorekit.<kind>``: ``scorekit.scorers``, ``scorekit.measures``..."""


@dataclass(frozen=True)
class Described:
    """One registered entry as `Registry.described` lists it.

    Attributes:
        kind: The registry's kind (``"measures"``).
        name: The entry's name.
        description: What it is, in one line.
        origin: Where it comes from: ``"scorekit"``, or the module that registered it.
    """

    kind: str
    name: str
    description: str
    origin: str


def _first_line(value: Any) -> str:
    doc = getattr(value, "__doc__", None) or ""
    return doc.strip().split("\n", 1)[0]


def _origin(value: Any) -> str:
    module = getattr(value, "__module__", None) or type(value).__module__
    return "scorekit" if module.split(".")[0] in ("scorers", "evals") else module


class Registry(Mapping[str, T], Generic[T]):
    """One extension kind's entries by name (a mapping: reading it loads nothing).

    Args:
        kind: The kind, as in the entry point group ``scorekit.<kind>``.
        what: One entry in words, for messages (``"ranking measure"``).
        describe: One line about an entry (default: its docstring's first line).
        own: Registers scorekit's own entries (imports their modules), before plugins.
    """

    def __init__(
        self,
        kind: str,
        what: str,
        describe: Callable[[T], str] = _first_line,
        own: Callable[[], None] | None = None,
    ):
        self.kind, self.what = kind, what
        self.group = ENTRY_POINT_PREFIX + kind
        self._describe, self._own = describe, own
        self._entries: dict[str, T] = {}
        self._origins: dict[str, str] = {}
        self._loaded = threading.Event()
        self._loading = threading.RLock()
        self._running = False
        REGISTRIES[kind] = self

    def add(
        self,
        name: str,
        entry: T,
        *,
        replace: bool = False,
        override: bool = False,
        origin: str | None = None,
    ) -> T:
        """Register ``entry`` under ``name``.

        Args:
            name: Its name.
            entry: The entry.
            replace: Replace an entry of that name from the same origin, or another
                plugin's (else that is refused).
            override: Replace scorekit's own entry of that name: a plugin never does so
                silently.
            origin: Where it comes from (default: the module that defined ``entry``).

        Raises:
            ConfigError: When ``name`` is taken and may not be replaced; the message says
                by whom and how to replace it on purpose.
        """
        origin = origin or _origin(entry)
        held = self._entries.get(name)
        if held is not None and held is not entry:
            builtin = self._origins[name] == "scorekit" and origin != "scorekit"
            if (builtin and not override) or not (replace or override):
                raise ConfigError(
                    f"a {self.what} named {name!r} is already registered (by "
                    f"{self._origins[name]}); choose another name, or pass override=True to "
                    "replace it on purpose"
                )
        self._entries[name] = entry
        self._origins[name] = origin
        return entry

    def remove(self, name: str) -> None:
        """Forget the entry ``name`` (tests register toys and take them back)."""
        self._entries.pop(name, None)
        self._origins.pop(name, None)

    __delitem__ = remove

    def origin(self, name: str) -> str:
        """Where the entry ``name`` comes from."""
        return self._origins[name]

    def load(self) -> Registry[T]:
        """Make the registry whole, once: scorekit's own entries, then every module the
        ``scorekit.<kind>`` entry points name. A thread that asks while another loads
        waits; code that reads the registry while it is loading (a plugin checking the
        names taken) gets what is registered so far."""
        if self._loaded.is_set() or not READY.is_set():
            return self  # while scorekit itself is imported, its own entries only
        with self._loading:
            if self._loaded.is_set() or self._running:
                return self
            self._running = True
            try:
                if self._own is not None:
                    self._own()
                self._plugins()
                self._loaded.set()
            finally:
                self._running = False
        return self

    def _plugins(self) -> None:
        from importlib.metadata import entry_points

        for point in entry_points(group=self.group):
            try:
                point.load()
            except (Exception, SystemExit) as exc:  # a third party's failure must not stop ours
                print(
                    f"scorekit: the {self.what} entry point {point.name!r} ({point.value}) "
                    f"failed to load: {type(exc).__name__}: {exc}",
                    file=sys.stderr,
                )

    def described(self) -> list[Described]:
        """Every entry (after `load`), as a name, a line about it and its origin."""
        self.load()
        return [
            Described(self.kind, name, self._describe(entry), self._origins[name])
            for name, entry in self._entries.items()
        ]

    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"<Registry {self.kind}: {len(self._entries)} entries>"


READY = threading.Event()
"""Set once `scorers` is imported: plugins load only after scorekit's own entries."""

REGISTRIES: dict[str, Registry[Any]] = {}
"""Every registry made so far, by kind (`evals` adds file formats and commands when it is
imported)."""


def registries() -> dict[str, Registry[Any]]:
    """Every extension kind's registry, by kind."""
    return dict(REGISTRIES)
