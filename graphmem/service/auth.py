"""Who may call what: API keys (role ``read`` or ``admin``) and bearer JWTs whose
``roles`` claim (a string or a list of strings) holds ``ams_admin`` or ``ams_ro``.

No credential, or one that does not verify: 401. A verified caller without the
role the endpoint needs: 403. ``read`` may get, list and search; ``admin`` may
do everything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import jwt
from fastapi import Request
from starlette.exceptions import HTTPException

from graphmem.errors import InvalidArgumentError
from graphmem.service.keys import verify_key

__all__ = ["ADMIN", "READ", "caller_role", "requires"]

READ = "read"
ADMIN = "admin"
_JWT_ROLES = {"ams_admin": ADMIN, "ams_ro": READ}
_CHALLENGE = {"WWW-Authenticate": "Bearer"}
_UNSET = object()


def _unauthenticated(message: str) -> HTTPException:
    return HTTPException(401, message, headers=_CHALLENGE)


def _jwt_role(request: Request, token: str) -> str | None:
    config = request.app.state.config
    if config.jwt_key is None:
        raise _unauthenticated("the credential is not a valid API key")
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            config.jwt_key,
            algorithms=list(config.jwt_algorithms),
            options={"verify_aud": False, "require": ["exp"]},
        )
    except jwt.PyJWTError as exc:
        raise _unauthenticated(f"the bearer token does not verify: {exc}") from None
    roles = claims.get("roles", [])
    if isinstance(roles, str):
        roles = [roles]
    if not isinstance(roles, list):  # null, a number, an object...: no role granted
        roles = []
    granted = {_JWT_ROLES[r] for r in roles if isinstance(r, str) and r in _JWT_ROLES}
    if ADMIN in granted:
        return ADMIN
    return READ if READ in granted else None


def caller_role(request: Request) -> str | None:
    """The verified caller's role (None: verified but holding no service role).

    Verified once per request (the body check and the route's dependency both
    ask): the role is kept in the request's state.

    Raises:
        HTTPException: 401 without a credential or with one that does not verify.
    """
    known = getattr(request.state, "graphmem_role", _UNSET)
    if known is not _UNSET:
        return cast("str | None", known)
    role = _verified_role(request)
    request.state.graphmem_role = role
    return role


def _verified_role(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise _unauthenticated("send 'Authorization: Bearer <API key or token>'")
    if token.startswith("gm_"):
        role = verify_key(request.app.state.memory._store, token)
        if role is None:
            raise _unauthenticated("the API key is unknown or revoked")
        return role
    return _jwt_role(request, token)


def known_query(request: Request) -> None:
    """A dependency that refuses query parameters the route does not take (they
    would be ignored, and a request that asks for something it does not get
    should fail, not succeed)."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    if dependant is None:
        return
    allowed = {param.alias for param in dependant.query_params}
    unknown = sorted(set(request.query_params) - allowed)
    if unknown:
        raise InvalidArgumentError(unknown[0], "is not a query parameter of this route")


def requires(role: str) -> Callable[[Request], str]:
    """A dependency that lets through callers holding ``role`` (admin holds both)."""

    def check(request: Request) -> str:
        found = caller_role(request)
        if found is not None and found in (ADMIN, role):
            return found
        raise HTTPException(403, f"this operation needs the {role} role")

    return check
