"""Secrets out of every text scorekit keeps or shows.

Some providers echo the API key (or a header) in an error body or even in an answer;
every error message, warning, `JudgeCall` response and cache entry passes through a
`Redactor` first.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ._completion import TransportError

REDACTED = "[redacted]"
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD)", re.I)
_SECRET_HEADER = re.compile(r"(auth|key|token|secret|cookie)", re.I)
MIN_SECRET_LENGTH = 6  # shorter values would redact ordinary words


def secret_header(name: str) -> bool:
    """Whether a header of this name carries a credential."""
    return bool(_SECRET_HEADER.search(name))


def header_values(params: Mapping[str, Any]) -> list[str]:
    """Every header value in litellm arguments (``extra_headers``, ``headers``)."""
    values: list[str] = []
    for name in ("extra_headers", "headers", "default_headers"):
        headers = params.get(name)
        if isinstance(headers, Mapping):
            values.extend(str(v) for v in headers.values())
    return values


class Redactor:
    """Replaces each known secret in a text with ``[redacted]``.

    Args:
        secrets: Values to hide (an API key, header values).
        environment: Also hide the values of environment variables whose names look like
            credentials (``*_API_KEY``, ``*_TOKEN``...), which litellm may have sent.
    """

    def __init__(self, secrets: Iterable[str | None] = (), *, environment: bool = True):
        found = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        if environment:
            found.update(
                value
                for name, value in os.environ.items()
                if _SECRET_ENV.search(name) and len(value) >= MIN_SECRET_LENGTH
            )
        # longest first, so a secret that contains another is hidden whole
        self._secrets = sorted(found, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced."""
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, REDACTED)
        return text

    def __bool__(self) -> bool:
        return bool(self._secrets)


def redacted_error(error: TransportError, redact: Redactor) -> TransportError:
    """``error`` with the secrets ``redact`` knows taken out of its message."""
    if not redact or not error.message:
        return error
    return TransportError(
        error.kind,
        redact(error.message),
        status=error.status,
        retry_after=error.retry_after,
        missing_env=error.missing_env,
    )


_SECRET_QUERY = re.compile(r"(key|token|secret|password|passwd|sig|signature|auth|code)", re.I)


def url_secrets(url: str | None) -> list[str]:
    """The credentials inside a URL, in every spelling they may be shown in.

    They are the password (or lone user) of ``user:key@host`` and the values of query or
    fragment parameters named like ``api-key``, ``token``, ``sig``. Each is returned as it
    is written in the URL and decoded (``%XX`` and ``+``), and re-encoded both ways, so a
    secret is found whether a message quotes the URL, the decoded value or a client's
    re-encoding of it.
    """
    if not url:
        return []
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    raw: list[str] = []
    if parts.username is not None:
        raw.append(parts.password or parts.username or "")
    for section in (parts.query, parts.fragment):
        for pair in re.split(r"[&;]", section):
            name, sep, value = pair.partition("=")
            if sep and _SECRET_QUERY.search(_decoded(name)):
                raw.append(value)
    found: dict[str, None] = {}
    for value in raw:
        for spelling in _spellings(value):
            if spelling:
                found.setdefault(spelling)
    return sorted(found, key=len, reverse=True)


def _decoded(text: str) -> str:
    from urllib.parse import unquote_plus

    return unquote_plus(text)


def _spellings(value: str) -> set[str]:
    """``value`` as written, decoded, and re-encoded with upper- and lower-case escapes."""
    from urllib.parse import quote, quote_plus, unquote, unquote_plus

    decoded = {value, unquote(value), unquote_plus(value)}
    spellings = set(decoded)
    for text in decoded:
        for encoded in (quote(text, safe=""), quote_plus(text, safe="")):
            spellings.add(encoded)
            spellings.add(re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), encoded))
    return spellings


_SECRET_PARAM = re.compile(
    r"(api[_-]?key|access[_-]?key|private[_-]?key|secret|password|passwd|credential|token$|"
    r"_token|auth(?!ors?$)|cookie|signature)",
    re.I,
)
"""Names of parameters that hold credentials (``aws_secret_access_key``, ``azure_ad_token``,
``extra_body.api_key``); narrow on purpose: a redacted value is taken out of every judge
answer too, so a plain word under a name like ``keywords`` must not be."""


def _secret_params(value: Any, secret: bool = False) -> Iterator[str]:
    """String values under credential-looking names, at any depth (``extra_body.api_key``,
    ``aws_secret_access_key``, ``azure_ad_token``)."""
    if isinstance(value, Mapping):
        for name, inner in value.items():
            yield from _secret_params(inner, secret or bool(_SECRET_PARAM.search(str(name))))
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from _secret_params(inner, secret)
    elif secret and isinstance(value, str):
        yield value


def judge_secrets(
    api_key: str | None, params: Mapping[str, Any], api_base: str | None
) -> list[str]:
    """Every credential a judge holds: its key, header values, parameters under
    credential-looking names at any depth, and what its ``api_base`` carries
    (``user:key@host``, ``?api-key=...``)."""
    found = (api_key, *header_values(params), *_secret_params(params), *url_secrets(api_base))
    return [s for s in found if s]


RECORDED_PARAMS = frozenset(
    {
        "temperature", "top_p", "top_k", "max_tokens", "max_completion_tokens", "seed", "n",
        "stop", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs",
        "top_logprobs", "reasoning_effort", "response_format", "api_version",
        "custom_llm_provider", "drop_params", "input_cost_per_token", "output_cost_per_token",
        "parallel_tool_calls", "tool_choice", "thinking", "verbosity", "modalities",
    }
)  # fmt: skip
"""Request parameters a results file records in clear; any other is recorded by name only
(`NOT_RECORDED`): an allow-list, so that no credential litellm takes under a name we do
not know (``aws_secret_access_key``, ``azure_ad_token``, ``extra_body``'s ``api_key``, a
``X-Password`` header) reaches a file, a report or the viewer."""

NOT_RECORDED = "<not recorded>"


def recorded_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as a results file may show them: the `RECORDED_PARAMS` in clear, the
    names of headers and of every other parameter with `NOT_RECORDED` for the value."""
    shown: dict[str, Any] = {}
    for name, value in params.items():
        if name in RECORDED_PARAMS:
            shown[name] = value
        elif name in ("extra_headers", "headers", "default_headers") and isinstance(value, Mapping):
            shown[name] = {str(k): NOT_RECORDED for k in value}
        else:
            shown[name] = NOT_RECORDED
    return shown


def public_url(url: str | None) -> str | None:
    """``url`` with its credentials replaced by ``[redacted]`` (what headers, reprs,
    reports and logs may show)."""
    if not url:
        return url
    for secret in sorted(url_secrets(url), key=len, reverse=True):
        url = url.replace(secret, REDACTED)
    return url


def without_secrets(params: dict[str, Any]) -> dict[str, Any]:
    """Request parameters with credential header values masked and the API key dropped
    (what a cache key or fingerprint may hold)."""
    params = dict(params)
    for name in ("extra_headers", "headers", "default_headers"):
        headers = params.get(name)
        if isinstance(headers, Mapping):
            params[name] = {
                k: ("<secret>" if secret_header(str(k)) else v) for k, v in headers.items()
            }
    params.pop("api_key", None)
    return params


_LOGGED_SECRETS: set[str] = set()
LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")


def register_secrets(secrets: Iterable[str | None]) -> None:
    """Keep ``secrets`` (a judge's API key and header values) out of litellm's log lines
    too: its DEBUG output prints each request as a curl command, headers in clear."""
    _LOGGED_SECRETS.update(s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH)


class SecretsFilter(logging.Filter):
    """Rewrites a log record's message with every registered secret redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        if _LOGGED_SECRETS:
            try:
                message = record.getMessage()
            except Exception:  # a record that cannot be formatted is left as it is
                return True
            clean = Redactor(_LOGGED_SECRETS, environment=False)(message)
            if clean != message:
                record.msg, record.args = clean, None
        return True


def redact_litellm_logs() -> None:
    """Put `SecretsFilter` on litellm's loggers (once)."""
    for name in LITELLM_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, SecretsFilter) for f in logger.filters):
            logger.addFilter(SecretsFilter())
