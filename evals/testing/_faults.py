"""`Fault`: constructors for the failures a real provider (or a small model) produces."""

from __future__ import annotations

import json

from ._exchange import FakeRequest, FakeResponse, Handler
from ._rule_judge import rule_based_judge


class Fault:
    """Constructors for injected faults."""

    @staticmethod
    def rate_limit(retry_after: float = 0.1, message: str = "rate limited") -> FakeResponse:
        """HTTP 429 with a ``Retry-After`` header (seconds); ``message`` as the provider's
        (e.g. one naming a tokens-per-minute limit)."""
        return FakeResponse(
            status=429,
            headers={"Retry-After": f"{retry_after:g}"},
            error_body={"error": {"message": message, "type": "rate_limit"}},
        )

    @staticmethod
    def server_error(status: int = 500) -> FakeResponse:
        """An HTTP 5xx."""
        return FakeResponse(
            status=status, error_body={"error": {"message": "internal error", "type": "server"}}
        )

    @staticmethod
    def unauthorized() -> FakeResponse:
        """HTTP 401, as for a bad API key."""
        return FakeResponse(
            status=401,
            error_body={
                "error": {
                    "message": "Incorrect API key provided",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
        )

    @staticmethod
    def bad_request(message: str = "bad request") -> FakeResponse:
        """HTTP 400."""
        return FakeResponse(
            status=400, error_body={"error": {"message": message, "type": "invalid_request_error"}}
        )

    @staticmethod
    def hang(seconds: float = 30.0) -> FakeResponse:
        """Answer nothing for ``seconds`` (the client should time out first)."""
        return FakeResponse(content="{}", delay=seconds)

    @staticmethod
    def malformed(text: str = "Sure! Here is the JSON: {claims: [oops") -> FakeResponse:
        """A 200 whose content is not valid JSON."""
        return FakeResponse(content=text)

    @staticmethod
    def wrong_verdict_count(drop: int = 1) -> Handler:
        """The rule-based judge's answer with the last ``drop`` verdicts removed.

        A script entry that is a function is called with the request, so this can stand
        in any position of a script.
        """

        def answer(request: FakeRequest) -> FakeResponse:
            data = json.loads(rule_based_judge(request).content or "{}")
            if isinstance(data.get("verdicts"), list):
                data["verdicts"] = data["verdicts"][: max(0, len(data["verdicts"]) - drop)]
            return FakeResponse(json.dumps(data))

        return answer

    @staticmethod
    def truncated(valid_json: str) -> FakeResponse:
        """A 200 whose JSON content is cut in half."""
        return FakeResponse(content=valid_json[: max(1, len(valid_json) // 2)])
