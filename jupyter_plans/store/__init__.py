"""The store: one plan file or database, its engines, statements, migrations and transactions."""

from ..lazy import lazy_names

# Imported on first use: the coding-agent hook reads a plan file through readonly.py alone.
_WHERE = {"DEFAULT_SESSION": ".store", "Store": ".store"}
__all__ = sorted(_WHERE)
__getattr__ = lazy_names(__name__, globals(), _WHERE)
