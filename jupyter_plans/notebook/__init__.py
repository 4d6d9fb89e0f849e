"""The notebook surface: the %plan magic and the extension's life in a kernel, %%agent beside
it, the live card widget, the watcher that keeps it current, and what a restarted kernel resumes
from."""

import sys


def say(text: str, *, err: bool = False) -> None:
    """Write TEXT and its newline in one write. A kernel sends what was written since its last
    flush as one stream message, and print's two writes (the text, then the newline) can be
    flushed apart: a reader of the output would get a line and then a lone newline, and a
    saved notebook's outputs would differ from run to run (nbval compares them)."""
    (sys.stderr if err else sys.stdout).write(f"{text}\n")
