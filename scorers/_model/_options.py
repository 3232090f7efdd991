"""`Judge` options checked at construction: litellm keyword arguments and the transport."""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from .._errors import ConfigError
from ._completion import Transport
from ._litellm import LITELLM_PARAMS, OWNED_PARAMS, LiteLLMTransport


def check_keywords(kwargs: Mapping[str, Any], init: Callable[..., Any]) -> None:
    """Refuse keywords that are neither litellm's parameters nor options of ``init``
    (``Judge.__init__``), suggesting the closest names."""
    for name in kwargs:
        if name in OWNED_PARAMS:
            raise ConfigError(f"Judge({name}=...) is set by scorekit: use {OWNED_PARAMS[name]}")
        if name in LITELLM_PARAMS:
            continue
        options = [n for n in inspect.signature(init).parameters if n not in ("self", "kwargs")]
        close = difflib.get_close_matches(name, [*options, *LITELLM_PARAMS], n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ConfigError(
            f"Judge got an unknown keyword {name!r}: it is neither a Judge option nor a "
            f"litellm completion parameter.{hint} Pass provider-specific parameters as "
            f"litellm_kwargs={{{name!r}: ...}}."
        )


def transport_for(transport: Transport | None, client_processes: int) -> Transport:
    """The transport a judge sends with: ``transport``, else litellm in this process or
    in ``client_processes`` helper processes.

    Raises:
        ConfigError: For both a transport and helper processes, or a transport without
            an async ``complete(request)``.
    """
    if transport is not None and client_processes:
        raise ConfigError("pass either transport= or client_processes=, not both")
    if transport is not None and not isinstance(transport, Transport):
        raise ConfigError(
            f"transport must have an async complete(request) method, got {type(transport).__name__}"
        )
    if transport is not None:
        return transport
    if client_processes:
        from ._process import ProcessTransport

        return ProcessTransport(client_processes)
    return LiteLLMTransport()
