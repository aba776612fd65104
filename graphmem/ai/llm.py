"""``Llm``: the OpenAI-compatible ``/chat/completions`` API, plain or structured."""

from __future__ import annotations

import asyncio
import json
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from graphmem.ai.http import JsonClient, RetryPolicy
from graphmem.errors import InvalidArgumentError, ModelError

__all__ = ["Llm", "Messages", "strip_json_fences"]

T = TypeVar("T", bound=BaseModel)
Messages = str | Sequence[Mapping[str, str]]
"""A user prompt, or OpenAI-style ``{"role": ..., "content": ...}`` messages."""

_ROLES = frozenset({"system", "user", "assistant", "developer"})
_SCHEMA_REFUSED = frozenset({400, 404, 415, 422, 501})
_SCHEMA_WORDS = ("response_format", "json_schema", "schema", "structured", "guided")
"""Words of a provider's refusal of ``json_schema`` (its message, lower case)."""


def _check_messages(messages: object) -> list[dict[str, str]]:
    if isinstance(messages, str):
        return [{"role": "user", "content": messages}]
    if not isinstance(messages, Sequence) or not messages:
        raise InvalidArgumentError("messages", "must be a string or a non-empty list of messages")
    checked = []
    for index, message in enumerate(messages):
        if (
            not isinstance(message, Mapping)
            or message.get("role") not in _ROLES
            or not isinstance(message.get("content"), str)
        ):
            raise InvalidArgumentError(
                f"messages[{index}]", "must be {'role': system|user|assistant, 'content': str}"
            )
        checked.append({"role": str(message["role"]), "content": str(message["content"])})
    return checked


def strip_json_fences(text: str) -> str:
    """The JSON inside a ```json ... ``` fence, which some models add in JSON mode."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```"):
        body = body[3:-3]
        body = body[4:] if body.startswith("json") else body
    return body.strip()


class Llm:
    """A chat model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    Structured output first asks for ``response_format`` ``json_schema``; a
    server that refuses it (415 or 501, or 400, 404 or 422 with a message naming
    ``response_format``, ``json_schema``, a schema, structured or guided output)
    is asked, from then on, for ``json_object`` with the schema in a system
    message; any other error fails that call only. The reply is
    validated with pydantic; an invalid reply gets one repair request showing
    the validation error, and a second failure is a
    :class:`~graphmem.errors.ModelError`.

    Args:
        model: the provider's model id, e.g. ``"gpt-4o-mini"`` or ``"llama3.1"``.
        api_base: the API root, e.g. ``"https://api.openai.com/v1"``.
        api_key: bearer token; never logged nor shown in errors. Surrounding whitespace
            is stripped; a control or non-ASCII character is an InvalidArgumentError.
        temperature: sampling temperature (0 for repeatable answers).
        max_tokens: cap on the reply's tokens (None: the server's default).
        max_concurrent_requests: requests in flight at once from sync calls, and
            per event loop from async calls.
        timeout: seconds per connect / read.
        max_retries: retries on 429, 5xx, timeouts and connection errors.

    Example:
        >>> Llm("gpt-4o-mini", api_key="sk-secret")
        Llm(model='gpt-4o-mini', api_base='https://api.openai.com/v1')
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        max_concurrent_requests: int = 8,
        timeout: float = 120.0,
        max_retries: int = 3,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise InvalidArgumentError("model", "must be a non-empty string")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise InvalidArgumentError("temperature", "must be a number")
        if not 0 <= temperature <= 2:
            raise InvalidArgumentError("temperature", f"must be in 0..2, got {temperature}")
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise InvalidArgumentError("max_tokens", "must be a positive int or None")
        limit = max_concurrent_requests
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1024:
            raise InvalidArgumentError("max_concurrent_requests", "must be an int in 1..1024")
        policy = RetryPolicy(timeout=timeout, max_retries=max_retries)
        self._client = JsonClient(api_base, api_key, policy, "chat completion")
        self.model = model
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.max_concurrent_requests = limit
        self._slots = threading.BoundedSemaphore(limit)
        self._loop_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._loop_slots = weakref.WeakKeyDictionary()
        self._schema_mode = True

    def __repr__(self) -> str:
        return f"Llm(model={self.model!r}, api_base={self._client.api_base!r})"

    # payloads -------------------------------------------------------------------

    def _payload(
        self, messages: list[dict[str, str]], schema: Mapping[str, Any] | None, schema_mode: bool
    ) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
        }
        if self.max_tokens is not None:
            payload["max_tokens"] = self.max_tokens
        if schema is not None and schema_mode:
            name = str(schema.get("title") or "reply")
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name[:64], "schema": dict(schema), "strict": False},
            }
        elif schema is not None:
            rule = "Reply with one JSON object only, matching this JSON schema: "
            payload["messages"] = [
                {"role": "system", "content": rule + json.dumps(schema)},
                *messages,
            ]
            payload["response_format"] = {"type": "json_object"}
        return payload

    def _content(self, answer: Any) -> str:
        try:
            content = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            content = None
        if not isinstance(content, str):
            raise self._client.fail(200, "answer has no choices[0].message.content string")
        return content

    def _falls_back(
        self, error: ModelError, schema: Mapping[str, Any] | None, schema_mode: bool
    ) -> bool:
        """Whether ``error`` is the server refusing ``json_schema`` itself (then it
        is not asked for it again): a 415 or 501, or a 400, 404 or 422 whose message
        names the feature. Another 400 (a prompt over the context length, say) is
        this call's failure only. ``schema_mode`` is how the failed request asked:
        requests in flight together each retry in JSON mode, whichever failed first."""
        if schema is None or not schema_mode or error.status not in _SCHEMA_REFUSED:
            return False
        said = error.provider_message.lower()
        if error.status in (415, 501) or any(word in said for word in _SCHEMA_WORDS):
            self._schema_mode = False  # this server does not do json_schema: stop asking
            return True
        return False

    # plain chat -------------------------------------------------------------------

    def chat(self, messages: Messages, *, json_schema: Mapping[str, Any] | None = None) -> str:
        """The assistant's reply (JSON text when ``json_schema`` is given).

        Raises:
            InvalidArgumentError: malformed ``messages``.
            ModelError: the provider failed or answered without a reply.
        """
        checked = _check_messages(messages)
        with self._slots:
            mode = self._schema_mode
            try:
                answer = self._client.post(
                    "/chat/completions", self._payload(checked, json_schema, mode)
                )
            except ModelError as error:
                if not self._falls_back(error, json_schema, mode):
                    raise
                answer = self._client.post(
                    "/chat/completions", self._payload(checked, json_schema, False)
                )
        return self._content(answer)

    def _async_slots(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        slots = self._loop_slots.get(loop)
        if slots is None:
            slots = self._loop_slots[loop] = asyncio.Semaphore(self.max_concurrent_requests)
        return slots

    async def achat(
        self, messages: Messages, *, json_schema: Mapping[str, Any] | None = None
    ) -> str:
        """Async :meth:`chat`."""
        checked = _check_messages(messages)
        async with self._async_slots():
            mode = self._schema_mode
            try:
                answer = await self._client.apost(
                    "/chat/completions", self._payload(checked, json_schema, mode)
                )
            except ModelError as error:
                if not self._falls_back(error, json_schema, mode):
                    raise
                answer = await self._client.apost(
                    "/chat/completions", self._payload(checked, json_schema, False)
                )
        return self._content(answer)

    # structured output ------------------------------------------------------------

    def _repair(
        self, messages: Messages, reply: str, error: ValidationError
    ) -> list[dict[str, str]]:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in error.errors()[:10]
        )
        return [
            *_check_messages(messages),
            {"role": "assistant", "content": reply},
            {
                "role": "user",
                "content": f"That reply is not valid ({problems}). Reply again with only the "
                "corrected JSON object matching the schema.",
            },
        ]

    def _invalid(self, output: type[BaseModel], error: ValidationError) -> ModelError:
        return self._client.fail(
            None, f"reply does not match {output.__name__} after one repair: {error.errors()[:3]}"
        )

    def structured(self, messages: Messages, output: type[T]) -> T:
        """The reply parsed into ``output`` (a pydantic model), with one repair attempt.

        Raises:
            ModelError: the provider failed, or the repaired reply is still invalid.
        """
        schema = output.model_json_schema()
        reply = self.chat(messages, json_schema=schema)
        try:
            return output.model_validate_json(strip_json_fences(reply))
        except ValidationError as error:
            repaired = self.chat(self._repair(messages, reply, error), json_schema=schema)
        try:
            return output.model_validate_json(strip_json_fences(repaired))
        except ValidationError as error:
            raise self._invalid(output, error) from None

    async def astructured(self, messages: Messages, output: type[T]) -> T:
        """Async :meth:`structured`."""
        schema = output.model_json_schema()
        reply = await self.achat(messages, json_schema=schema)
        try:
            return output.model_validate_json(strip_json_fences(reply))
        except ValidationError as error:
            repaired = await self.achat(self._repair(messages, reply, error), json_schema=schema)
        try:
            return output.model_validate_json(strip_json_fences(repaired))
        except ValidationError as error:
            raise self._invalid(output, error) from None

    def close(self) -> None:
        """Close pooled HTTP connections."""
        self._client.close()
