"""The agents' and hosts' config files we read (a host's settings, hooks file or config, as its
module in hosts/ names them; an agent's profile), in the project, a folder above it or a home:
read with bounds, since anything may be at those names. Only a regular file is read (a FIFO would
hold the read forever, a device such as /dev/zero behind a symbolic link would never end), at
most MAX_BYTES of it, within TIME_LIMIT seconds; what it holds may nest only so deep. What
cannot be read is one line naming the file (ConfigError), and whoever asked goes on."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20  # 1 MiB: settings files are a few KiB
TIME_LIMIT = 2.0  # seconds for the look, the open and the read
MAX_DEPTH = 64  # nesting of arrays and objects (or tables): settings nest a few levels
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class ConfigError(ValueError):
    """A config file that cannot be read or understood: `str()` is one line naming it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} {reason}")
        self.path, self.reason = path, reason


def read_text(path: Path, encoding: str = "utf-8-sig") -> str | None:
    """The file's text (UTF-8, a byte order mark dropped unless `encoding` is "utf-8");
    None when nothing is there."""
    found: list[Any] = []
    reader = threading.Thread(target=_read_into, args=(path, found), daemon=True)
    reader.start()
    reader.join(TIME_LIMIT)
    if not found:  # the reader is still waiting (a file system that does not answer)
        raise ConfigError(path, f"was not read: no answer within {TIME_LIMIT:g} s")
    if isinstance(found[0], BaseException):
        raise found[0]
    if found[0] is None:
        return None
    try:
        return found[0].decode(encoding)
    except UnicodeDecodeError as exc:
        raise ConfigError(path, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_json(path: Path) -> Any:
    """The file's JSON value (an empty file is {}); None when nothing is there."""
    text = read_text(path)
    return None if text is None else json_of(path, text)


def read_toml(path: Path) -> dict | None:
    """The file's TOML document; None when nothing is there."""
    text = read_text(path)
    return None if text is None else toml_of(path, text)


def json_of(path: Path, text: str) -> Any:
    """The JSON value of `text`, read from `path` (an empty text is {}), nested at most
    MAX_DEPTH levels; ConfigError otherwise."""
    try:
        value = json.loads(text or "{}")
    except RecursionError:
        raise ConfigError(path, f"nests more than {MAX_DEPTH} levels deep") from None
    except ValueError as exc:
        raise ConfigError(path, f"is not valid JSON ({exc})") from None
    return _bounded(path, value)


def toml_of(path: Path, text: str) -> dict:
    """The TOML document of `text`, read from `path`, nested at most MAX_DEPTH levels;
    ConfigError otherwise."""
    import tomllib  # here: a card reads config.toml only where a hooks file names this plan

    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise ConfigError(path, f"nests more than {MAX_DEPTH} levels deep") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, f"is not valid TOML ({exc})") from None
    return _bounded(path, value)


def _read_into(path: Path, found: list) -> None:
    try:
        found.append(_read(path))
    except BaseException as exc:  # noqa: BLE001 - handed to the caller, said there
        found.append(exc)


def _read(path: Path) -> bytes | None:
    try:
        _regular(path, os.stat(path))  # a symbolic link's target: /dev/zero is a device
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _NO_TTY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ConfigError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        _regular(path, os.fstat(handle))  # what was opened, if the name changed meanwhile
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(handle, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ConfigError(path, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(handle)
    if size > MAX_BYTES:
        raise ConfigError(path, f"is larger than {MAX_BYTES} bytes; settings files are not")
    return b"".join(chunks)


_NO_TTY = getattr(os, "O_NOCTTY", 0)


def _regular(path: Path, found: os.stat_result) -> None:
    if stat.S_ISREG(found.st_mode):
        return
    kind = next((name for test, name in _KINDS if test(found.st_mode)), "not a regular file")
    raise ConfigError(path, f"is {kind}, not a regular file; it was not read")


def _bounded(path: Path, value: Any) -> Any:
    """`value`, once it is seen to nest at most MAX_DEPTH levels."""
    level, todo = 0, [value] if isinstance(value, dict | list) and value else []
    while todo:
        level += 1
        if level > MAX_DEPTH:
            raise ConfigError(path, f"nests more than {MAX_DEPTH} levels deep")
        todo = [
            inner
            for item in todo
            for inner in (item.values() if isinstance(item, dict) else item)
            if isinstance(inner, dict | list)
        ]
        todo = [item for item in todo if item]
    return value
