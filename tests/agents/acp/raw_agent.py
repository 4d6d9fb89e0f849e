"""A hostile (or merely careless) ACP agent on stdio, for the bridge's tests: it answers
initialize and session/new, and on each session/prompt writes the raw lines of its script (a
JSON file of lines, each a JSON value or, as {"raw": TEXT}, a line as it is; read again for
each prompt), waiting after each request it sends for its answer; then it ends the prompt.
Every line it reads is appended to its log as JSON, so a test sees exactly what reached it.

    python -m tests.agents.acp.raw_agent SCRIPT LOG
"""

from __future__ import annotations

import json
import sys


def main(script_path: str, log_path: str) -> None:
    log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 - open while the agent runs
    out = sys.stdout.buffer

    def send(value) -> None:
        line = value["raw"] if isinstance(value, dict) and "raw" in value else json.dumps(value)
        out.write(line.encode("utf-8", "surrogatepass") + b"\n")
        out.flush()

    def read():
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        log.write(line.decode("utf-8", "replace").rstrip("\n") + "\n")
        log.flush()
        try:
            return json.loads(line)
        except ValueError:
            return None

    def answer_to(request_id):
        while True:
            message = read()
            if (
                isinstance(message, dict)
                and message.get("id") == request_id
                and ("result" in message or "error" in message)
            ):
                return message
            handle(message)

    def handle(message) -> None:
        if not isinstance(message, dict) or "method" not in message or "id" not in message:
            return
        method, request_id = message["method"], message["id"]
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"protocolVersion": 1}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": "raw-1"}})
        elif method == "session/prompt":
            with open(script_path, encoding="utf-8") as f:
                script = json.load(f)  # read for each prompt: a test may change it
            for value in script:
                send(value)
                if isinstance(value, dict) and "method" in value and "id" in value:
                    answer_to(value["id"])
            send({"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}})
        else:
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})

    while True:
        handle(read())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
