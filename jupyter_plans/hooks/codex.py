"""`hook install codex`: what the install says about Codex's trust in the hooks it registered,
and `--trust`, which records that trust in Codex's config.toml as Codex's own review does
(`[hooks.state."<key>"] trusted_hash = "sha256:..."`, agents/codex_trust.py).

The config file is edited as text, so the person's comments and order stay: a table of ours
gets its `trusted_hash` line replaced or added, a missing one is appended, and the result must
read back as the same settings plus those hashes, or the file is left as it is.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import tomllib

from ..agents.codex_trust import Hook, codex_home, hook_states, hooks_of, why_not_run
from .files import replace_file

_HEADER = re.compile(
    r"""^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\\n]|\\.)*"|'[^'\n]*')\s*\]\s*(?:\#.*)?$"""
)
_TRUSTED_LINE = re.compile(r"^\s*trusted_hash\s*=")


def registered(hooks_file: Path, commands: set[str]) -> list[Hook]:
    """Our handlers in the hooks file as written, with Codex's key and hash for each."""
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    return [hook for hook in hooks_of(hooks_file, data) if hook.command in commands]


def config_file() -> Path:
    return codex_home() / "config.toml"


def note(hooks: list[Hook], folder: Path, config: Path) -> str:
    """What the install says of Codex's trust in `hooks`, without --trust."""
    try:
        states = hook_states(_read(config) if config.is_file() else {})
    except ValueError:
        states = {}
    reasons = [why_not_run(hook, states) for hook in hooks]
    if all(reason is None for reason in reasons):
        return f"Codex already trusts these hooks (recorded in {config})"
    return (
        "Codex runs a project's hooks only once you trust them, and `codex exec` cannot ask: "
        "until then it skips them without a word, and plan mode does not hold in Codex. Trust "
        "them once: run this command again with --trust (it records their trust in "
        f"{config}, as Codex's own review does), or start `codex` in {folder} and choose "
        '"Trust all and continue" when it says the hooks need review'
    )


def trust(hooks: list[Hook], config: Path) -> str:
    """Record Codex's trust in `hooks`; what the install says. ValueError when refused."""
    changed = record_trust(config, {hook.key: hook.digest for hook in hooks})
    said = (
        f"Codex trusts these hooks now: their trust is recorded in {config}"
        if changed
        else f"Codex already trusts these hooks (recorded in {config})"
    )
    states = hook_states(_read(config))
    off = sum(why_not_run(hook, states) == "turned off" for hook in hooks)
    if off:
        said += (
            f"; {off} of them are turned off there (enabled = false), and Codex skips them "
            "until that line is removed"
        )
    return said


def record_trust(config: Path, entries: dict[str, str]) -> int:
    """Set `trusted_hash` of each key in `entries` in the config file; how many changed.
    ValueError, with the file left as it is, when it cannot be done safely.

    The file is read with TOML's own parser, and edited as text so that it stays the person's
    byte for byte (comments, order, line endings, a byte order mark): a table of ours gets its
    `trusted_hash` line replaced or added, a missing one is appended in the file's own line
    ending; the result must read back as the same settings plus those hashes. A new file is
    made readable by its owner only."""
    if config.is_symlink():
        raise ValueError(
            f"{config} is a symbolic link; it was left as it is (trust the hooks in Codex's "
            "own review instead)"
        )
    bom, text = _split_bom(_text_of(config)) if config.exists() else ("", "")
    current = _parsed(config, text)
    states = hook_states(current)
    todo = {
        key: digest
        for key, digest in entries.items()
        if states.get(key, {}).get("trusted_hash") != digest
    }
    if not todo:
        return 0
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    for key, digest in todo.items():
        _set_trust(lines, key, f'trusted_hash = "{digest}"{newline}', newline)
    edited = "".join(lines)
    expected = copy.deepcopy(current)
    state = expected.setdefault("hooks", {}).setdefault("state", {})
    for key, digest in todo.items():
        state.setdefault(key, {})["trusted_hash"] = digest
    try:
        readable = tomllib.loads(edited) == expected
    except tomllib.TOMLDecodeError:
        readable = False
    if not readable:
        raise ValueError(
            f"{config} sets hooks.state in a form this command does not edit; it was left as "
            "it is (trust the hooks in Codex's own review instead)"
        )
    replace_file(config, bom + edited, new_mode=0o600)
    return len(todo)


def _set_trust(lines: list[str], key: str, line: str, newline: str) -> None:
    """Replace or add `line` in the table of `key`, or append that table to the file."""
    header = _header_index(lines, key)
    if header is None:
        lines += [newline] * bool(lines) + [f"[hooks.state.{_quoted(key)}]{newline}", line]
        return
    end = next((i for i in range(header + 1, len(lines)) if _starts_table(lines, i)), len(lines))
    found = next(
        (
            i
            for i in range(header + 1, end)
            if _TRUSTED_LINE.match(lines[i]) and _at_top_level(lines, i)
        ),
        None,
    )
    if found is None:
        lines.insert(header + 1, line)
    else:
        lines[found] = line


def _text_of(config: Path) -> str:
    """The file's text exactly as it is (no line ending translated)."""
    try:
        return config.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{config} is not valid TOML ({exc}); it was left as it is") from None


def _split_bom(text: str) -> tuple[str, str]:
    """(the byte order mark an editor may have put first, or "", the text after it)."""
    return ("\ufeff", text[1:]) if text.startswith("\ufeff") else ("", text)


def _parsed(config: Path, text: str) -> dict:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{config} is not valid TOML ({exc}); it was left as it is") from None


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


def _header_index(lines: list[str], key: str) -> int | None:
    for index, line in enumerate(lines):
        match = _HEADER.match(line)
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
