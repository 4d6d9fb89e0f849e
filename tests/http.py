"""Requests to a real Jupyter server the tests started, with its token."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from tests.conftest import SERVER_TOKEN


def request(server, method, route, body=None, token=SERVER_TOKEN, headers=None, timeout=10):
    """(status, JSON body) of a request to the server."""
    data = (
        None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    )
    req = urllib.request.Request(f"{server['base']}{route}", data=data, method=method)
    if token:
        req.add_header("Authorization", f"token {token}")
    for key, value in (headers or {}).items():
        req.add_header(key, value)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text.decode(errors="replace")
