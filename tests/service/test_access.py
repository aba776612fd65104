"""Access control: every endpoint under every kind of credential, and the key CLI."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import jwt
import pytest

from graphmem.cli import main
from graphmem.service.keys import KEY_PATTERN, revoke_key

from .inproc import Service

JWT_KEY = "a-test-secret-of-at-least-32-bytes!!"

# Every endpoint and the role it needs (read: get, list, search; admin: the rest).
ENDPOINTS = {
    ("POST", "/v1/prompts"): "admin",
    ("GET", "/v1/prompts"): "read",
    ("GET", "/v1/prompts/{prompt_id}"): "read",
    ("GET", "/v1/prompts/{prompt_id}/versions"): "read",
    ("PATCH", "/v1/prompts/{prompt_id}"): "admin",
    ("POST", "/v1/prompts/{prompt_id}/archive"): "admin",
    ("POST", "/v1/prompts/{prompt_id}/purge"): "admin",
    ("POST", "/v1/users"): "admin",
    ("GET", "/v1/users"): "read",
    ("GET", "/v1/users/{user_id}"): "read",
    ("DELETE", "/v1/users/{user_id}"): "admin",
    ("POST", "/v1/sessions"): "admin",
    ("GET", "/v1/sessions"): "read",
    ("GET", "/v1/sessions/{session_id}"): "read",
    ("DELETE", "/v1/sessions/{session_id}"): "admin",
    ("GET", "/v1/sessions/{session_id}/messages"): "read",
    ("GET", "/v1/sessions/{session_id}/context_card"): "read",
    ("POST", "/v1/sessions/{session_id}/memory"): "admin",
    ("GET", "/v1/sessions/{session_id}/memory"): "read",
    ("GET", "/v1/sessions/{session_id}/memory/{block_id}"): "read",
    ("PATCH", "/v1/sessions/{session_id}/memory/{block_id}"): "admin",
    ("POST", "/v1/memories"): "admin",
    ("GET", "/v1/memories/{memory_id}"): "read",
    ("GET", "/v1/memories/{memory_id}/links"): "read",
    ("POST", "/v1/links"): "admin",
    ("DELETE", "/v1/links/{relation_id}"): "admin",
    ("POST", "/v1/search"): "read",
}


def _token(roles: object, *, key: str = JWT_KEY, expires_in: float = 600) -> str:
    claims = {"sub": "someone", "roles": roles, "exp": int(time.time() + expires_in)}
    return jwt.encode(claims, key, algorithm="HS256")


@pytest.fixture(scope="module")
def svc() -> Iterator[Service]:
    service = Service(jwt_key=JWT_KEY)
    yield service
    service.close()


def test_every_endpoint_is_in_the_matrix(svc: Service) -> None:
    routes = {
        (method.upper(), path)
        for path, operations in svc.app.openapi()["paths"].items()
        if path.startswith("/v1/")
        for method in operations
    }
    assert routes == set(ENDPOINTS)


def _credentials(svc: Service) -> dict[str, tuple[str | None, str | None]]:
    """name -> (Authorization header, role it holds: None = unauthenticated, "" = none)."""
    revoked_text, _ = svc.revoked
    return {
        "missing": (None, None),
        "not bearer": (f"Basic {svc.admin_key}", None),
        "unknown key": ("Bearer gm_0123456789abcdef_" + "x" * 43, None),
        "garbage": ("Bearer not-a-key-or-token", None),
        "revoked key": (f"Bearer {revoked_text}", None),
        "read key": (f"Bearer {svc.read_key}", "read"),
        "admin key": (f"Bearer {svc.admin_key}", "admin"),
        "jwt ams_ro": (f"Bearer {_token(['ams_ro'])}", "read"),
        "jwt ams_admin": (f"Bearer {_token(['ams_admin', 'other'])}", "admin"),
        "jwt ams_ro as a string": (f"Bearer {_token('ams_ro')}", "read"),
        "jwt without a service role": (f"Bearer {_token(['viewer'])}", ""),
        "jwt roles null": (f"Bearer {_token(None)}", ""),
        "jwt roles a number": (f"Bearer {_token(5)}", ""),
        "jwt roles true": (f"Bearer {_token(True)}", ""),
        "jwt roles an object": (f"Bearer {_token({'ams_admin': True})}", ""),
        "jwt expired": (f"Bearer {_token(['ams_admin'], expires_in=-60)}", None),
        "jwt wrong signature": (f"Bearer {_token(['ams_admin'], key='x' * 40)}", None),
    }


def test_role_by_endpoint_matrix(svc: Service) -> None:
    from graphmem.service.keys import create_key

    text, row = create_key(svc.memory._store, "admin")
    revoke_key(svc.memory._store, row.key_id)
    svc.revoked = (text, row)  # type: ignore[attr-defined]
    checked = 0
    for name, (header, held) in _credentials(svc).items():
        for (method, template), needed in ENDPOINTS.items():
            path = re.sub(r"\{[a-z_]+\}", "x", template)
            headers = {} if header is None else {"Authorization": header}
            body = {} if method in ("POST", "PATCH") else None
            answer = svc.http.request(method, path, headers=headers, json=body)
            where = f"{name} {method} {template}: {answer.status_code} {answer.text[:120]}"
            if held is None:
                expected = (401, "UNAUTHENTICATED")
            elif held == "admin" or held == needed:
                assert answer.status_code not in (401, 403), where
                assert answer.status_code < 500, where
                checked += 1
                continue
            else:
                expected = (403, "FORBIDDEN")
            assert (answer.status_code, answer.json()["code"]) == expected, where
            if expected[0] == 401:
                assert answer.headers["www-authenticate"] == "Bearer"
            checked += 1
    assert checked == len(ENDPOINTS) * len(_credentials(svc))


def test_health_and_openapi_need_no_credential(svc: Service) -> None:
    assert svc.http.get("/health").json()["status"] == "ok"
    paths = svc.http.get("/openapi.json").json()["paths"]
    assert {template for _, template in ENDPOINTS} <= set(paths)


def test_without_a_jwt_key_tokens_are_refused() -> None:
    svc = Service()
    try:
        answer = svc.http.get(
            "/v1/prompts", headers={"Authorization": f"Bearer {_token(['ams_admin'])}"}
        )
        assert (answer.status_code, answer.json()["code"]) == (401, "UNAUTHENTICATED")
    finally:
        svc.close()


def test_keys_cli_create_list_revoke(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "keys.db")
    assert main(["keys", "create", "--db", db, "--role", "read", "--label", "ci"]) == 0
    out = capsys.readouterr().out
    key = out.strip()
    assert out == key + "\n" and KEY_PATTERN.fullmatch(key)  # the key alone on stdout
    assert main(["keys", "create", "--db", db, "--role", "admin"]) == 0
    capsys.readouterr()
    assert main(["keys", "list", "--db", db]) == 0
    listing = capsys.readouterr().out
    key_id = KEY_PATTERN.fullmatch(key).group(1)  # type: ignore[union-attr]
    assert f"{key_id}  read   live     ci" in listing
    assert key not in listing and KEY_PATTERN.fullmatch(key).group(2) not in listing  # type: ignore[union-attr]
    assert main(["keys", "revoke", "--db", db, key_id]) == 0
    capsys.readouterr()
    assert main(["keys", "list", "--db", db]) == 0
    assert f"{key_id}  read   revoked" in capsys.readouterr().out
    assert main(["keys", "revoke", "--db", db, key_id]) == 1  # no live key of that id
    capsys.readouterr()
    assert main(["keys", "revoke", "--db", db, key]) == 1  # the whole key: its id, no secret
    secret = KEY_PATTERN.fullmatch(key).group(2)  # type: ignore[union-attr]
    shown = capsys.readouterr()
    assert secret not in shown.out + shown.err and key_id in shown.err
    assert main(["keys", "create", "--db", db, "--role", "read"]) == 0
    other = capsys.readouterr().out.strip()
    assert main(["keys", "revoke", "--db", db, other]) == 0
    other_id = KEY_PATTERN.fullmatch(other).group(1)  # type: ignore[union-attr]
    assert capsys.readouterr().out == f"revoked {other_id}\n"
    assert main(["keys", "create", "--db", db, "--role", "owner"]) == 2
    import sqlite3

    conn = sqlite3.connect(db)
    stored = conn.execute("SELECT key_hash FROM graphmem_api_key").fetchall()
    conn.close()
    assert all(KEY_PATTERN.fullmatch(key).group(2) not in h for (h,) in stored)  # type: ignore[union-attr]
