"""The CLI's commands as a registry: scorekit's own found by looking — every module of
this package with an ``add(subparsers)`` — and others registered by name
(`register_command`) or by the modules ``scorekit.commands`` entry points name."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scorers._internal import Registry


@dataclass(frozen=True)
class Command:
    """One entry of the CLI.

    Attributes:
        name: Its name in the registry (a module's, for scorekit's own).
        add: ``add(subparsers)`` adds its parser (or several: ``run`` and ``demo``) and
            sets each parser's ``handler`` (``handler(args) -> exit code``).
        place: Where it stands in ``scorekit --help`` (scorekit's own: 10 to 110).
        description: What it does, in one line.
    """

    name: str
    add: Callable[[Any], None]
    place: int = 1_000
    description: str = ""


def _own() -> None:
    package = sys.modules[__package__]
    for found in pkgutil.iter_modules(package.__path__):
        if found.name.startswith("__"):
            continue
        module = importlib.import_module(f"{__package__}.{found.name}")
        add = getattr(module, "add", None)
        if callable(add):
            name = found.name.lstrip("_")
            line = (module.__doc__ or "").strip().split("\n", 1)[0]
            COMMANDS.add(name, Command(name, add, getattr(module, "PLACE", 1_000), line),
                         replace=True, origin="scorekit")  # fmt: skip


COMMANDS: Registry[Command] = Registry("commands", "command", lambda c: c.description, own=_own)
"""Every command of ``scorekit``, by name."""


def register_command(
    name: str, add: Callable[[Any], None], *, place: int = 1_000, description: str = ""
) -> Command:
    """Add a command to ``scorekit``.

    Args:
        name: Its name in the registry (a name taken is refused).
        add: ``add(subparsers)``: adds the command's parser with
            ``subparsers.add_parser(...)`` and sets ``handler(args) -> exit code`` on it
            (``parser.set_defaults(handler=...)``).
        place: Where it stands in ``scorekit --help`` (after scorekit's own by default).
        description: What it does, in one line (default: ``add``'s docstring's first).

    Raises:
        ConfigError: When ``name`` is taken.
    """
    line = description or (add.__doc__ or "").strip().split("\n", 1)[0]
    origin = getattr(add, "__module__", None)
    return COMMANDS.add(name, Command(name, add, place, line), origin=origin)


def commands() -> list[Command]:
    """Every command, in their order in ``scorekit --help``."""
    return sorted(COMMANDS.load().values(), key=lambda c: (c.place, c.name))
