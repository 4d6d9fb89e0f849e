"""Running code in a real kernel as a notebook front end does, for the kernel tests."""

from __future__ import annotations


def execute(client, code, cell_id=None):
    """Run code as a notebook front end does (the cell id in the metadata); the iopub messages
    of the run, and its reply."""
    content = {
        "code": code,
        "silent": False,
        "store_history": True,
        "user_expressions": {},
        "allow_stdin": False,
        "stop_on_error": False,
    }
    msg = client.session.msg("execute_request", content)
    if cell_id is not None:
        msg["metadata"]["cellId"] = cell_id
    client.shell_channel.send(msg)
    seen = []
    while True:
        message = client.get_iopub_msg(timeout=60)
        if message["parent_header"].get("msg_id") != msg["header"]["msg_id"]:
            continue
        seen.append(message)
        if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
            break
    while True:  # past any reply left over (start_new_kernel asks kernel_info until answered)
        reply = client.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return seen, reply["content"]


def printed(messages) -> str:
    """What a run printed, from its iopub messages."""
    return "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")
