"""``ModelServer``: a real HTTP server on 127.0.0.1 speaking the model APIs graphmem calls.

It serves the OpenAI-compatible ``/embeddings`` and ``/chat/completions``
endpoints and the common ``/rerank`` endpoint, under any prefix (``url`` ends
in ``/v1``), so adapter tests go through real sockets, httpx and JSON:

* embeddings are :class:`~graphmem.embedders.HashingEmbedder` vectors
  (deterministic; the request's ``dimensions`` is honoured);
* chat replies are scripted: queued replies first, then the first matching
  rule, then ``default_reply``; with none, the answer is a 400;
* reranking scores documents by the cosine of their hashing vectors to the query.

Faults are queued per endpoint and each is used by one request:
:meth:`~ModelServer.fail` (any status, e.g. 429 or 500, with ``Retry-After``),
:meth:`~ModelServer.stall` (answer late, past a client's timeout),
:meth:`~ModelServer.send_malformed` (a 200 whose body is not JSON),
:meth:`~ModelServer.disconnect` (close without answering),
:meth:`~ModelServer.drop_vector`, :meth:`~ModelServer.wrong_dimension` and
:meth:`~ModelServer.non_finite` (a broken ``/embeddings`` answer).

Example:
    >>> from graphmem import Embedder, ModelError
    >>> with ModelServer(dimension=8) as server:
    ...     embedder = Embedder("test-embed", api_base=server.url, max_retries=0)
    ...     print(embedder.embed(["hello"]).shape)
    ...     server.fail("embeddings", 503, "overloaded")
    ...     try:
    ...         embedder.embed(["hello"])
    ...     except ModelError as error:
    ...         print(error.status, error.provider_message)
    (1, 8)
    503 overloaded
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from graphmem.embedders import HashingEmbedder

__all__ = ["ENDPOINTS", "Fault", "ModelServer", "RecordedRequest"]

ENDPOINTS = ("embeddings", "chat/completions", "rerank")
ChatRule = tuple[Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], str]]


@dataclass(frozen=True)
class Fault:
    """One injected misbehaviour, used by one request.

    Attributes:
        status: HTTP status to answer with (ignored when 200 and a vector fault is set).
        message: the provider message, as ``{"error": {"message": ...}}``.
        delay: seconds to wait before answering.
        body: raw body to send instead of JSON.
        retry_after: ``Retry-After`` header value, in seconds.
        disconnect: close the connection without answering.
        drop_vectors: ``/embeddings``: leave out this many vectors.
        dimension: ``/embeddings``: cut or pad every vector to this length.
        non_finite: ``/embeddings``: put NaN into the first vector.
    """

    status: int = 200
    message: str = "injected failure"
    delay: float = 0.0
    body: str | None = None
    retry_after: float | None = None
    disconnect: bool = False
    drop_vectors: int = 0
    dimension: int | None = None
    non_finite: bool = False


@dataclass(frozen=True)
class RecordedRequest:
    """A request the server received: path, decoded JSON body and headers (lower-cased)."""

    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if isinstance(message, dict) and message.get("role") == "user":
            return str(message.get("content", ""))
    return ""


class ModelServer:
    """A threaded HTTP server on ``127.0.0.1`` (free port) with scripted model answers.

    Args:
        dimension: embedding length when the request names none.
        api_key: when set, requests must send ``Authorization: Bearer <api_key>``
            (others get a 401 whose message repeats the key they sent, as some
            providers do).
        json_schema: whether chat accepts ``response_format`` ``json_schema``
            (False answers 400, like servers that only know JSON mode).
        default_reply: the chat reply when no queued reply or rule applies.
    """

    def __init__(
        self,
        *,
        dimension: int = 64,
        api_key: str | None = None,
        json_schema: bool = True,
        default_reply: str | None = None,
    ) -> None:
        self.dimension = dimension
        self.api_key = api_key
        self.json_schema = json_schema
        self.default_reply = default_reply
        self._lock = threading.Lock()
        self._faults: dict[str, list[Fault]] = {name: [] for name in ENDPOINTS}
        self._replies: list[str] = []
        self._rules: list[ChatRule] = []
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self.peak_in_flight = 0
        """The most requests this server was answering at one moment."""
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle ------------------------------------------------------------------

    def start(self) -> ModelServer:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        httpd.block_on_close = False  # a stalled answer must not hold up stop()
        httpd.model_server = self  # type: ignore[attr-defined]  # read by _Handler
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the port."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The API root to pass as ``api_base``, e.g. ``http://127.0.0.1:41234/v1``."""
        if self._httpd is None:
            raise RuntimeError("ModelServer is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    # what it received -------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, endpoint: str) -> list[RecordedRequest]:
        """The requests whose path ends in ``/<endpoint>``."""
        return [r for r in self.requests if r.path.endswith("/" + endpoint)]

    # scripting --------------------------------------------------------------------

    def queue_replies(self, *replies: str) -> None:
        """Chat replies to give, in order, before any rule."""
        with self._lock:
            self._replies.extend(replies)

    def add_rule(
        self,
        match: str | Callable[[dict[str, Any]], bool],
        reply: str | Callable[[dict[str, Any]], str],
    ) -> None:
        """Answer chats that match (a substring of the last user message, or a predicate
        on the request body) with ``reply`` (text, or a function of the body)."""
        test = (lambda body: match in _last_user_text(body)) if isinstance(match, str) else match
        answer = (lambda body: reply) if isinstance(reply, str) else reply
        with self._lock:
            self._rules.append((test, answer))

    def inject(self, endpoint: str, fault: Fault, times: int = 1) -> None:
        """Queue ``fault`` for the next ``times`` requests to ``endpoint``."""
        if endpoint not in self._faults:
            raise ValueError(f"endpoint must be one of {ENDPOINTS}, got {endpoint!r}")
        with self._lock:
            self._faults[endpoint].extend([fault] * times)

    def fail(
        self,
        endpoint: str,
        status: int,
        message: str = "injected failure",
        *,
        times: int = 1,
        retry_after: float | None = None,
    ) -> None:
        """Answer the next ``times`` requests with ``status`` and ``message``."""
        self.inject(endpoint, Fault(status=status, message=message, retry_after=retry_after), times)

    def stall(self, endpoint: str, seconds: float, *, times: int = 1) -> None:
        """Answer the next ``times`` requests normally, but only after ``seconds``."""
        self.inject(endpoint, Fault(delay=seconds), times)

    def send_malformed(self, endpoint: str, *, times: int = 1) -> None:
        """Answer 200 with a body that is not JSON."""
        self.inject(endpoint, Fault(body='{"data": [truncated'), times)

    def disconnect(self, endpoint: str, *, times: int = 1) -> None:
        """Close the connection without answering."""
        self.inject(endpoint, Fault(disconnect=True), times)

    def drop_vector(self, *, times: int = 1) -> None:
        """``/embeddings`` answers with one vector fewer than texts."""
        self.inject("embeddings", Fault(drop_vectors=1), times)

    def wrong_dimension(self, dimension: int, *, times: int = 1) -> None:
        """``/embeddings`` answers with vectors of ``dimension`` instead."""
        self.inject("embeddings", Fault(dimension=dimension), times)

    def non_finite(self, *, times: int = 1) -> None:
        """``/embeddings`` answers with NaN in the first vector."""
        self.inject("embeddings", Fault(non_finite=True), times)

    # answering (called from the handler threads) -----------------------------------

    def _record(self, request: RecordedRequest) -> tuple[str | None, Fault | None]:
        endpoint = next((e for e in ENDPOINTS if request.path.endswith("/" + e)), None)
        with self._lock:
            self._requests.append(request)
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
            queue = self._faults.get(endpoint or "", [])
            return endpoint, queue.pop(0) if queue else None

    def _done(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _answer(self, endpoint: str, body: Any, fault: Fault) -> tuple[int, Any]:
        if not isinstance(body, dict):
            return 400, {"error": {"message": "body must be a JSON object"}}
        if endpoint == "embeddings":
            return self._embeddings(body, fault)
        if endpoint == "rerank":
            return self._rerank(body)
        return self._chat(body)

    def _embeddings(self, body: dict[str, Any], fault: Fault) -> tuple[int, Any]:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return 400, {"error": {"message": "input must be a string or a list of strings"}}
        size = body.get("dimensions") or self.dimension
        rows = HashingEmbedder(dim=max(int(size), 8)).embed(texts)[:, :size].tolist()
        rows = rows[: len(rows) - fault.drop_vectors]
        if fault.dimension is not None:
            rows = [(row + [0.0] * fault.dimension)[: fault.dimension] for row in rows]
        if fault.non_finite and rows:
            rows[0][0] = float("nan")
        data = [{"object": "embedding", "index": i, "embedding": r} for i, r in enumerate(rows)]
        return 200, {"object": "list", "data": data, "model": body.get("model")}

    def _rerank(self, body: dict[str, Any]) -> tuple[int, Any]:
        query, documents = body.get("query"), body.get("documents")
        if not isinstance(query, str) or not isinstance(documents, list):
            return 400, {"error": {"message": "query and documents are required"}}
        vectors = HashingEmbedder().embed([query, *map(str, documents)])
        scores = np.clip(vectors[1:] @ vectors[0], -1.0, 1.0)
        order = sorted(range(len(documents)), key=lambda i: (-float(scores[i]), i))
        top_n = body.get("top_n") or len(documents)
        results = [{"index": i, "relevance_score": float(scores[i])} for i in order[:top_n]]
        return 200, {"model": body.get("model"), "results": results}

    def _chat(self, body: dict[str, Any]) -> tuple[int, Any]:
        kind = (body.get("response_format") or {}).get("type")
        if kind == "json_schema" and not self.json_schema:
            return 400, {"error": {"message": "response_format json_schema is not supported"}}
        with self._lock:
            reply = self._replies.pop(0) if self._replies else None
            rules = list(self._rules)
        if reply is None:
            reply = next((answer(body) for test, answer in rules if test(body)), None)
        reply = self.default_reply if reply is None else reply
        if reply is None:
            return 400, {"error": {"message": "ModelServer: no scripted chat reply"}}
        choice = {"index": 0, "message": {"role": "assistant", "content": reply}}
        return 200, {
            "object": "chat.completion",
            "model": body.get("model"),
            "choices": [{**choice, "finish_reason": "stop"}],
        }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
        pass

    def do_POST(self) -> None:
        model_server: ModelServer = self.server.model_server  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        headers = {k.lower(): v for k, v in self.headers.items()}
        endpoint, fault = model_server._record(RecordedRequest(self.path, body, headers))
        try:
            self._reply(model_server, endpoint, body, headers, fault or Fault())
        finally:
            model_server._done()

    def _reply(
        self,
        model_server: ModelServer,
        endpoint: str | None,
        body: Any,
        headers: dict[str, str],
        fault: Fault,
    ) -> None:
        time.sleep(fault.delay)
        if fault.disconnect:
            self.close_connection = True
            return
        if endpoint is None:
            self._send(404, {"error": {"message": f"no endpoint {self.path}"}}, fault)
        elif model_server.api_key and headers.get("authorization") != (
            f"Bearer {model_server.api_key}"
        ):
            sent = headers.get("authorization", "").removeprefix("Bearer ")
            self._send(401, {"error": {"message": f"Incorrect API key provided: {sent}"}}, fault)
        elif fault.status != 200 or fault.body is not None:
            self._send(fault.status, {"error": {"message": fault.message}}, fault)
        else:
            self._send(*model_server._answer(endpoint, body, fault), fault)

    def _send(self, status: int, payload: Any, fault: Fault) -> None:
        data = (json.dumps(payload) if fault.body is None else fault.body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if fault.retry_after is not None:
                self.send_header("Retry-After", f"{fault.retry_after:g}")
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (its timeout passed)
