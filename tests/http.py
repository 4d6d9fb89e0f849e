"""Requests to a real Jupyter server the tests started, with its token, and the next event of a
stream it sends."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from tests.jupyter_process import SERVER_TOKEN


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


def next_event(response):
    fields = {}
    while True:
        line = response.fp.readline().decode().rstrip("\n")
        if not line:
            if "data" in fields:
                return int(fields["id"]), json.loads(fields["data"])
            fields = {}
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(": ")
        fields[key] = value
