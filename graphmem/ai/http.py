"""JSON over HTTP for the model adapters: bounded timeouts, retries with backoff.

Every adapter (embedder, LLM, reranker) posts a JSON body to one path under
``api_base`` and reads a JSON answer. A 429, a 5xx, a timeout or a failed
connection is retried with exponential backoff (``Retry-After`` is honoured up
to the backoff cap); any other status, and an answer that is not JSON, fails at
once, and so does a request httpx cannot even form. Failures become
:class:`~graphmem.errors.ModelError`; the API key is sent only in the
``Authorization`` header and scrubbed from every message, escaped forms included.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

from graphmem.errors import InvalidArgumentError, ModelError

__all__ = ["JsonClient", "RetryPolicy", "check_api_base", "check_api_key"]

_RETRY_STATUSES = frozenset({408, 409, 429})
_MESSAGE_LIMIT = 500
_SCAN_LIMIT = 100_000
"""How much of a provider's answer is scrubbed of the key; then cut to _MESSAGE_LIMIT."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a request is tried.

    Attributes:
        timeout: seconds allowed for connecting, and again for each read or write.
        max_retries: retries after the first attempt (0 disables retrying).
        backoff: seconds before the first retry; doubled for each further retry.
        max_backoff: no wait is longer than this, whatever ``Retry-After`` says.
    """

    timeout: float = 60.0
    max_retries: int = 3
    backoff: float = 0.5
    max_backoff: float = 8.0

    def __post_init__(self) -> None:
        for name in ("timeout", "backoff", "max_backoff"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise InvalidArgumentError(name, f"must be a number >= 0, got {value!r}")
        if self.timeout == 0:
            raise InvalidArgumentError("timeout", "must be > 0")
        retries = self.max_retries
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= 20:
            raise InvalidArgumentError("max_retries", f"must be an int in 0..20, got {retries!r}")

    def delay(self, retry: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based)."""
        wanted = self.backoff * 2 ** (retry - 1) * random.uniform(0.5, 1.0)
        if retry_after is not None:
            wanted = max(wanted, retry_after)
        return float(min(wanted, self.max_backoff))


def check_api_base(api_base: object) -> str:
    """``api_base`` without its trailing slash; it must be an http(s) URL."""
    if not isinstance(api_base, str) or not api_base.startswith(("http://", "https://")):
        raise InvalidArgumentError(
            "api_base", f"must be an http:// or https:// URL, got {api_base!r}"
        )
    return api_base.rstrip("/")


def check_api_key(api_key: object) -> str | None:
    """``api_key`` without surrounding whitespace (a key read from a file often ends
    in a newline); None or a blank key is None.

    Raises:
        InvalidArgumentError: not a string, or a control or non-ASCII character
            inside; the message gives its position, never the key.
    """
    if api_key is None:
        return None
    if not isinstance(api_key, str):
        raise InvalidArgumentError("api_key", "must be a string or None")
    key = api_key.strip()
    for position, char in enumerate(key):
        if not " " <= char <= "~":
            raise InvalidArgumentError(
                "api_key",
                f"must hold printable ASCII characters only; character {position} "
                "(after stripping surrounding whitespace) is a control or non-ASCII character",
            )
    return key or None


def _key_forms(key: str) -> tuple[str, ...]:
    """``key`` as error text may show it: as is, and escaped by ``repr`` of the
    string or of its bytes, or by JSON; longest first."""
    forms = {
        key,
        repr(key)[1:-1],
        repr(key.encode("utf-8"))[2:-1],
        json.dumps(key)[1:-1],
        key.encode("unicode_escape").decode("ascii"),
    }
    return tuple(sorted(forms, key=len, reverse=True))


def _provider_message(response: httpx.Response) -> str:
    """The provider's own explanation, from the usual error shapes or the raw text
    (its first ``_SCAN_LIMIT`` characters: :meth:`JsonClient.fail` scrubs the key
    from it before cutting it to ``_MESSAGE_LIMIT``, so no cut halves a key)."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:_SCAN_LIMIT] or response.reason_phrase
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:_SCAN_LIMIT]
        for value in (error, body.get("message"), body.get("detail")):
            if isinstance(value, str):
                return value[:_SCAN_LIMIT]
    return json.dumps(body)[:_SCAN_LIMIT]


def _retry_after(response: httpx.Response) -> float | None:
    try:
        value = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return value if value >= 0 else None


class _Retry(Exception):
    """One failed attempt that may be retried."""

    def __init__(self, error: ModelError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class JsonClient:
    """POSTs JSON to ``api_base + path`` with the retry policy, sync or async.

    Args:
        api_base: e.g. ``https://api.openai.com/v1`` or ``http://localhost:11434/v1``.
        api_key: sent as ``Authorization: Bearer ...``; None sends no header. Surrounding
            whitespace is stripped; see :func:`check_api_key`.
        policy: timeouts and retries.
        operation: names the caller in error messages, e.g. ``"embeddings"``.
    """

    def __init__(
        self, api_base: str, api_key: str | None, policy: RetryPolicy, operation: str
    ) -> None:
        self._api_key = check_api_key(api_key)
        self._key_forms = _key_forms(self._api_key) if self._api_key else ()
        self.api_base = check_api_base(api_base)
        self.policy = policy
        self.operation = operation
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        key = "set" if self._api_key else "none"
        return f"JsonClient({self.api_base!r}, api_key={key}, operation={self.operation!r})"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _scrub(self, text: str) -> str:
        for form in self._key_forms:
            text = text.replace(form, "***")
        return text

    def fail(self, status: int | None, provider_message: str) -> ModelError:
        """A :class:`ModelError` for this operation, with the key scrubbed (before the
        message is cut to its length limit, so that no cut leaves part of a key)."""
        said = self._scrub(provider_message)[:_MESSAGE_LIMIT]
        where = f"HTTP {status}" if status is not None else "no answer"
        return ModelError(
            f"{self.operation} at {self.api_base} failed ({where}): {said}",
            status=status,
            provider_message=said,
            api_base=self.api_base,
        )

    def _outcome(self, response: httpx.Response) -> Any:
        status = response.status_code
        if status in _RETRY_STATUSES or status >= 500:
            raise _Retry(self.fail(status, _provider_message(response)), _retry_after(response))
        if status >= 400:
            raise self.fail(status, _provider_message(response))
        try:
            return response.json()
        except ValueError:
            snippet = self._scrub(response.text.strip()[:_SCAN_LIMIT])[:80]
            raise self.fail(status, f"answer is not JSON: {snippet!r}") from None

    def _transport_error(self, exc: httpx.HTTPError) -> ModelError | _Retry:
        if isinstance(exc, httpx.TimeoutException):
            said = f"no answer within {self.policy.timeout:g} s ({type(exc).__name__})"
        else:
            said = f"{type(exc).__name__}: {exc}"
        error = self.fail(None, said)
        # A request httpx refuses to send (an illegal header, say) fails alike every time.
        return error if isinstance(exc, httpx.LocalProtocolError) else _Retry(error)

    def _sync_client(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self.policy.timeout)
            return self._client

    def post(self, path: str, payload: dict[str, Any]) -> Any:
        """POST ``payload``; returns the decoded JSON answer.

        Raises:
            ModelError: a non-retryable answer, or every attempt failed.
        """
        url = self.api_base + path
        for attempt in range(self.policy.max_retries + 1):
            try:
                try:
                    response = self._sync_client().post(url, json=payload, headers=self._headers())
                except httpx.HTTPError as exc:
                    raise self._transport_error(exc) from None
                return self._outcome(response)
            except _Retry as retry:
                if attempt == self.policy.max_retries:
                    raise retry.error from None
                time.sleep(self.policy.delay(attempt + 1, retry.retry_after))
        raise AssertionError("unreachable")  # pragma: no cover

    async def apost(self, path: str, payload: dict[str, Any]) -> Any:
        """Async :meth:`post` (one short-lived client per call, so any event loop works)."""
        url = self.api_base + path
        async with httpx.AsyncClient(timeout=self.policy.timeout) as client:
            for attempt in range(self.policy.max_retries + 1):
                try:
                    try:
                        response = await client.post(url, json=payload, headers=self._headers())
                    except httpx.HTTPError as exc:
                        raise self._transport_error(exc) from None
                    return self._outcome(response)
                except _Retry as retry:
                    if attempt == self.policy.max_retries:
                        raise retry.error from None
                    await asyncio.sleep(self.policy.delay(attempt + 1, retry.retry_after))
        raise AssertionError("unreachable")  # pragma: no cover

    def close(self) -> None:
        """Close the pooled sync connections (async calls hold none)."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
