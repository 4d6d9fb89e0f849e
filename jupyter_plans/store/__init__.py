"""The store: one plan file or database, its engines, statements, migrations and transactions."""

from .store import DEFAULT_SESSION, Store, check_session_id

__all__ = ["DEFAULT_SESSION", "Store", "check_session_id"]
