"""`hook install codex`: what the install says about Codex's trust in the hooks it registered,
and `--trust`, which records that trust in Codex's config.toml as Codex's own review does
(`[hooks.state."<key>"] trusted_hash = "sha256:..."`, agents/codex_trust.py), with the trust of
the project that Codex 0.167 and later need before they load its `.codex/`
(`[projects."<folder>"] trust_level = "trusted"`).

The config file is edited as text, so the person's comments and order stay: a table of ours
gets its `trusted_hash` line replaced or added, a missing one is appended, and the result must
read back as the same settings plus those hashes, or the file is left as it is.
"""

from __future__ import annotations

import copy
import json
import os
import re
import tomllib
from pathlib import Path

from ..config_files import ConfigError, read_json, read_text, toml_of
from .codex_trust import (
    Hook,
    codex_home,
    hook_states,
    hooks_of,
    project_trust,
    why_not_run,
)
from .files import replace_file

_HEADER = r"""^\s*\[\s*{table}\s*\.\s*("(?:[^"\\\n]|\\.)*"|'[^'\n]*')\s*\]\s*(?:\#.*)?$"""
HOOKS_STATE = ("hooks", "state")


def registered(hooks_file: Path, commands: set[str]) -> list[Hook]:
    """Our handlers in the hooks file as written, with Codex's key and hash for each;
    ConfigError (a ValueError) when it cannot be read."""
    data = read_json(hooks_file)
    return [hook for hook in hooks_of(hooks_file, data) if hook.command in commands]


def config_file() -> Path:
    return codex_home() / "config.toml"


def note(hooks: list[Hook], folder: Path, config: Path) -> str:
    """What the install says of Codex's trust in `hooks` and their project, without --trust."""
    try:
        current = _read(config) if config.is_file() else {}
    except ValueError:
        current = {}
    reasons = [why_not_run(hook, hook_states(current)) for hook in hooks]
    if all(reason is None for reason in reasons) and project_trust(current, folder) is None:
        return f"Codex already trusts these hooks and this project (recorded in {config})"
    return (
        "Codex runs a project's hooks only once you trust them (and, from 0.167, only in a "
        "project you trust), and `codex exec` cannot ask: until then it skips them without a "
        "word, and plan mode does not hold in Codex. Trust them once: run this command again "
        f"with --trust (it records their trust and the project's in {config}, as Codex's own "
        f'review does), or start `codex` in {folder} and choose "Trust all and continue" when '
        "it says the hooks need review"
    )


def trust(hooks: list[Hook], config: Path, folder: Path) -> str:
    """Record what Codex needs to run `hooks`: their trust, and (for 0.167 and later) the trust
    of the project in `folder`; what the install says. ValueError when refused."""
    root = os.path.realpath(folder)
    if config.is_file() and project_trust(_read(config), Path(root)) == "marked untrusted":
        raise ValueError(
            f"{config} marks the project {root} untrusted (trust_level); it was left as it is: "
            'set trust_level = "trusted" there yourself if you trust it'
        )
    changed = record_trust(config, {hook.key: hook.digest for hook in hooks})
    changed += record_trust(config, {root: "trusted"}, ("projects",), "trust_level")
    said = (
        f"Codex trusts these hooks now: their trust is recorded in {config}, with the trust of "
        f"the project {root}, which Codex 0.167 and later need before they load its .codex/"
        if changed
        else f"Codex already trusts these hooks and this project (recorded in {config})"
    )
    states = hook_states(_read(config))
    off = sum(why_not_run(hook, states) == "turned off" for hook in hooks)
    if off:
        said += (
            f"; {off} of them are turned off there (enabled = false), and Codex skips them "
            "until that line is removed"
        )
    return said


def record_trust(
    config: Path, entries: dict[str, str], table=HOOKS_STATE, field: str = "trusted_hash"
) -> int:
    """Set `field` of each key's table under `table` (`[hooks.state."<key>"] trusted_hash`, or
    `[projects."<folder>"] trust_level`) in the config file; how many changed.
    ValueError, with the file left as it is, when it cannot be done safely.

    The file is read with TOML's own parser, and edited as text so that it stays the person's
    byte for byte (comments, order, line endings, a byte order mark): a table of ours gets its
    `field` line replaced or added, a missing one is appended in the file's own line ending;
    the result must read back as the same settings plus those values. A new file is made
    readable by its owner only."""
    if config.is_symlink():
        raise ValueError(
            f"{config} is a symbolic link; it was left as it is (trust the hooks in Codex's "
            "own review instead)"
        )
    bom, text = _split_bom(_text_of(config)) if config.exists() else ("", "")
    current = _parsed(config, text)
    states = _tables(current, table)
    todo = {
        key: digest for key, digest in entries.items() if states.get(key, {}).get(field) != digest
    }
    if not todo:
        return 0
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    for key, digest in todo.items():
        _set_trust(lines, key, f'{field} = "{digest}"{newline}', newline, table, field)
    edited = "".join(lines)
    expected = copy.deepcopy(current)
    state = expected
    for name in table:
        state = state.setdefault(name, {})
    for key, digest in todo.items():
        state.setdefault(key, {})[field] = digest
    try:
        readable = tomllib.loads(edited) == expected
    except tomllib.TOMLDecodeError:
        readable = False
    if not readable:
        raise ValueError(
            f"{config} sets {'.'.join(table)} in a form this command does not edit; it was left "
            "as it is (trust the hooks in Codex's own review instead)"
        )
    replace_file(config, bom + edited, new_mode=0o600)
    return len(todo)


def _set_trust(
    lines: list[str], key: str, line: str, newline: str, table: tuple[str, ...], field: str
) -> None:
    """Replace or add `line` (setting `field`) in the table of `key` under `table`, or append
    that table to the file."""
    header = _header_index(lines, key, table)
    if header is None:
        lines += [newline] * bool(lines) + [f"[{'.'.join(table)}.{_quoted(key)}]{newline}", line]
        return
    setting = re.compile(rf"^\s*{field}\s*=")
    end = next((i for i in range(header + 1, len(lines)) if _starts_table(lines, i)), len(lines))
    found = next(
        (i for i in range(header + 1, end) if setting.match(lines[i]) and _at_top_level(lines, i)),
        None,
    )
    if found is None:
        lines.insert(header + 1, line)
    else:
        lines[found] = line


def _text_of(config: Path) -> str:
    """The file's text exactly as it is (no line ending translated, a byte order mark kept),
    read with the bounds of any config file."""
    try:
        return read_text(config, encoding="utf-8") or ""
    except ConfigError as exc:
        raise ValueError(f"{exc}; it was left as it is") from None


def _tables(config: dict, table: tuple[str, ...]) -> dict[str, dict]:
    if table == HOOKS_STATE:
        return hook_states(config)
    for name in table:
        config = config.get(name) if isinstance(config, dict) else None
    return {k: v for k, v in (config or {}).items() if isinstance(v, dict)}


def _split_bom(text: str) -> tuple[str, str]:
    """(the byte order mark an editor may have put first, or "", the text after it)."""
    return ("\ufeff", text[1:]) if text.startswith("\ufeff") else ("", text)


def _parsed(config: Path, text: str) -> dict:
    try:
        return toml_of(config, text)
    except ConfigError as exc:
        raise ValueError(f"{exc}; it was left as it is") from None


def _read(config: Path) -> dict:
    return _parsed(config, _split_bom(_text_of(config))[1])


def _at_top_level(lines: list[str], index: int) -> bool:
    """Whether line `index` begins at the top level of the document, not inside a multi-line
    string or array: what comes before it is a whole TOML document."""
    try:
        tomllib.loads("".join(lines[:index]))
    except tomllib.TOMLDecodeError:
        return False
    return True


def _starts_table(lines: list[str], index: int) -> bool:
    return lines[index].lstrip().startswith("[") and _at_top_level(lines, index)


def _header_index(lines: list[str], key: str, table: tuple[str, ...]) -> int | None:
    pattern = re.compile(_HEADER.replace("{table}", r"\s*\.\s*".join(table)))
    for index, line in enumerate(lines):
        match = pattern.match(line)
        if (
            match
            and tomllib.loads(f"key = {match.group(1)}")["key"] == key
            and _at_top_level(lines, index)
        ):
            return index
    return None


def _quoted(key: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL must be escaped too)."""
    return json.dumps(key, ensure_ascii=False).replace("\x7f", "\\u007f")
