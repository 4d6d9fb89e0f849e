"""Names a package imports on first use (PEP 562), so a part of it loads without the rest; and
regular expressions compiled on first use."""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not loaded: the coding-agent hook imports this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def lazy_names(package: str, namespace: dict, where: dict[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `name` from the module `where[name]` (relative to
    `package`) the first time it is asked for, and keeps it in `namespace`."""

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module  # not before a name is asked for (the hook)

        value = namespace[name] = getattr(import_module(where[name], package), name)
        return value

    return __getattr__


class LazyModule:
    """A module's names, imported with the module the first time one is used.

    `models = LazyModule("jupyter_plans.plan.models")` lets a module refer to `models.Snapshot`
    without loading pydantic until the first call that needs a model; after that, each name
    is a plain attribute of this object.
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        from importlib import import_module

        value = getattr(import_module(self._name), name)
        setattr(self, name, value)
        return value


class LazyPattern:
    """A regular expression compiled the first time it is used; after that, each method used is
    a plain attribute of this object. Compiling a character class beyond Latin-1 takes some two
    million instructions, and a card or a hook that checks no text needs none of them."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        import re  # not before a pattern is used (the hook loads this module)

        value = getattr(re.compile(self.pattern), name)
        setattr(self, name, value)
        return value
