"""A session id's bound and the default session: what the coding-agent hook needs to check an
id that is plainly fine, before the rules of intake.py (and the Unicode data they read) load."""

MAX_SESSION_ID_BYTES = 128
DEFAULT_SESSION = "default"  # a store's current session until `%plan new` makes another


def plainly_a_session_id(session_id: object) -> bool:
    """Whether every rule of intake.py's session_id_refusal takes `session_id` without looking
    further: printable ASCII, 1 to 128 characters, no space at either end."""
    return (
        isinstance(session_id, str)
        and 0 < len(session_id) <= MAX_SESSION_ID_BYTES
        and session_id.isascii()
        and session_id.isprintable()
        and session_id == session_id.strip()
    )
