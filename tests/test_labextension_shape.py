"""The shape of the front end in labextension/src holds: every relative import resolves, no
import circle, no file over 400 lines, imports run one way (index -> surfaces -> card and
api -> types), and ESLint finds nothing (labextension/eslint.config.mjs: no function over 60
lines, as for the Python, and the recommended rules).

Type-only imports count: tsc erases them, so they can never fail at run time, but they tie two
files together all the same, and a layer that needs a type from above is in the wrong place.
Standard library only, and no import of jupyter_plans: this runs while the Python tree moves.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.imports import find_cycles as strongly_connected

LABEXTENSION = Path(__file__).resolve().parent.parent / "labextension"
SRC = LABEXTENSION / "src"
ESLINT = LABEXTENSION / "node_modules" / ".bin" / "eslint"

MAX_LINES = 400

# The floors, lowest first. A file may import from its own folder (or itself, at the top) and
# from any floor below; never from a floor above, nor from another folder on its own floor.
FLOORS: list[set[str]] = [
    {"types"},
    {"api", "card", "identity"},
    {"commands", "mime", "panel", "widget"},
    {"index"},
]

# Words after which a `/` starts a regular expression rather than a division.
_REGEX_AFTER_WORDS = {
    "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw",
    "instanceof", "yield", "await",
}  # fmt: skip
_REGEX_AFTER_CHARS = set("(,=:[!&|?{};+-*%<>~^")

# `from "./x"` (import and export), `import "./x"`, `import("./x")`, `require("./x")`; matched
# on the text with comments and literal contents blanked, so the keyword is surely code.
_IMPORT = re.compile(r"(?<![\w$.])(?:from|import|require)\s*(?:\(\s*)?(['\"])")


def _blank(text: str) -> str:
    """`text` with comments, and the contents of strings, templates and regular expressions,
    turned to spaces (newlines kept, so offsets and lines stay where they were)."""
    out = list(text)
    n = len(text)
    # One entry per template substitution `${...}` open: the depth of `{` inside it.
    templates: list[int] = []
    previous = ""  # the last character of code before this point, spaces aside

    def blank(start: int, end: int) -> None:
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    def regex_may_start(at: int) -> bool:
        if previous == "" or previous in _REGEX_AFTER_CHARS:
            return True
        word = re.search(r"([\w$]+)\s*$", text[max(0, at - 20) : at])
        return bool(word) and word.group(1) in _REGEX_AFTER_WORDS

    i = 0
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
            continue
        if c in "'\"":
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i, previous = j + 1, c
            continue
        if c == "`" or (c == "}" and templates and templates[-1] == 0):
            if c == "}":
                templates.pop()
            j = i + 1
            while j < n and text[j] != "`" and not text.startswith("${", j):
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            if text.startswith("${", j):
                templates.append(0)
                i = j + 2
            else:
                i = j + 1
            previous = "`"
            continue
        if c == "/" and regex_may_start(i):
            j, in_class = i + 1, False
            while j < n and text[j] != "\n" and (in_class or text[j] != "/"):
                if text[j] == "\\":
                    j += 1
                elif text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                j += 1
            blank(i + 1, j)
            i, previous = j + 1, "/"
            continue
        if templates and c == "{":
            templates[-1] += 1
        elif templates and c == "}":
            templates[-1] -= 1
        if not c.isspace():
            previous = c
        i += 1
    return "".join(out)


def relative_imports(text: str) -> list[str]:
    """The relative specifiers that `text` imports or re-exports, in order."""
    code = _blank(text)
    found = []
    for match in _IMPORT.finditer(code):
        quote_at = match.end() - 1
        end = text.index(match.group(1), quote_at + 1)
        specifier = text[quote_at + 1 : end]
        if specifier.startswith(("./", "../")):
            found.append(specifier)
    return found


def sources() -> dict[str, Path]:
    """Every .ts and .tsx file of labextension/src, by its path relative to src."""
    return {
        path.relative_to(SRC).as_posix(): path
        for path in sorted(SRC.rglob("*"))
        if path.suffix in {".ts", ".tsx"} and path.is_file()
    }


def candidates(importer: str, specifier: str) -> list[str]:
    """Where TypeScript's bundler resolution looks for `specifier`, first match wins."""
    base = os.path.normpath(os.path.join(os.path.dirname(importer), specifier)).replace("\\", "/")
    stem = re.sub(r"\.(js|ts|tsx)$", "", base)
    tried = [f"{stem}.ts", f"{stem}.tsx", f"{stem}/index.ts", f"{stem}/index.tsx"]
    return ([base] if base.endswith((".ts", ".tsx")) else []) + tried


def graph() -> tuple[dict[str, set[str]], list[str]]:
    """The edges between src files, and one line for each relative import that resolves to none."""
    files = sources()
    edges: dict[str, set[str]] = {name: set() for name in files}
    unresolved = []
    for name, path in files.items():
        for specifier in relative_imports(path.read_text(encoding="utf-8")):
            tried = candidates(name, specifier)
            target = next((c for c in tried if c in files), None)
            if target is None:
                unresolved.append(
                    f"labextension/src/{name} imports {specifier!r}, which is no file of "
                    f"labextension/src (tried {', '.join(tried)})"
                )
            else:
                edges[name].add(target)
    return edges, unresolved


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One circle for each strongly connected group of files (the package's own finder), as a
    path that starts and ends at the group's first file."""
    return sorted(_path_around(set(group), edges) for group in strongly_connected(edges))


def _path_around(group: set[str], edges: dict[str, set[str]]) -> list[str]:
    """The shortest way from the group's first file back to itself, inside the group."""
    start = min(group)
    paths = {target: [start, target] for target in sorted(edges[start] & group)}
    queue = list(paths)
    while start not in paths:
        node = queue.pop(0)
        for target in sorted(edges[node] & group):
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    return paths[start]


def floor_of(name: str) -> tuple[int, str]:
    folder = name.split("/")[0].removesuffix(".tsx").removesuffix(".ts")
    for number, folders in enumerate(FLOORS):
        if folder in folders:
            return number, folder
    raise AssertionError(
        f"labextension/src/{name} is in no floor: add {folder!r} to FLOORS in this test"
    )


def test_the_reader_finds_every_form_of_import():
    """The reader is itself checked, so the tests below cannot pass by finding nothing."""
    sample = """
        import { a } from "./a";
        import type { B } from '../b';
        import {
          c,
          type D,
        } from "./c/index";
        export { e } from "./e";
        export type { F } from "./f";
        export * from "./g";
        import "./side-effect";
        const lazy = () => import("./lazy");
        import { external } from "@jupyterlab/apputils";
        // import { commented } from "./commented";
        /* export { blocked } from "./blocked"; */
        const url = "http://example.org/x"; import { afterUrl } from "./after-url";
        const split = text.split(/`([^`\\n]+)`/); import { afterRegex } from "./after-regex";
        const words = `from "./in-template" ${items.map((x) => `${x}`)}`;
        const said = "import('./in-string')";
        const list = Array.from("./not-an-import");
    """
    assert relative_imports(sample) == [
        "./a",
        "../b",
        "./c/index",
        "./e",
        "./f",
        "./g",
        "./side-effect",
        "./lazy",
        "./after-url",
        "./after-regex",
    ]


def test_the_graph_sees_the_imports_it_should():
    edges, _ = graph()
    assert len(edges) > 20, f"only {len(edges)} files found under {SRC}"
    assert "panel/index.ts" in edges["index.ts"]
    assert "card/index.ts" in edges["widget.ts"]  # `./card` is the folder's index
    assert "types.ts" in edges["card/index.ts"]  # a type-only import
    assert "card/dom.ts" in edges["card/index.ts"]


def test_the_circle_finder_finds_a_circle():
    edges = {"a.ts": {"b.ts"}, "b.ts": {"c.ts"}, "c.ts": {"a.ts"}, "d.ts": {"a.ts", "d.ts"}}
    assert find_cycles(edges) == [["a.ts", "b.ts", "c.ts", "a.ts"], ["d.ts", "d.ts"]]


def test_every_relative_import_resolves():
    _, unresolved = graph()
    assert unresolved == [], "relative imports that resolve to no file:\n" + "\n".join(unresolved)


def test_no_import_circle():
    cycles = find_cycles(graph()[0])
    assert cycles == [], "import circles in labextension/src:\n" + "\n".join(
        " -> ".join(cycle) for cycle in cycles
    )


def test_no_file_over_400_lines():
    too_long = []
    for name, path in sources().items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            too_long.append(f"labextension/src/{name} has {lines} lines; the limit is {MAX_LINES}")
    assert too_long == [], "split these along a seam:\n" + "\n".join(too_long)


def test_imports_run_only_downward():
    wrong = []
    for name, targets in graph()[0].items():
        floor, folder = floor_of(name)
        for target in targets:
            target_floor, target_folder = floor_of(target)
            if target_floor > floor or (target_floor == floor and target_folder != folder):
                wrong.append(f"{name} -> {target}")
    assert wrong == [], "imports that run up or across in labextension/src: " + ", ".join(
        sorted(wrong)
    )


def test_eslint_finds_nothing():
    """Where the front end's packages are installed (any build installs them; CI builds)."""
    if not ESLINT.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{ESLINT} is missing: run `jlpm install` in labextension/")
        pytest.skip("labextension/node_modules is not installed (jlpm install)")
    found = subprocess.run(
        [str(ESLINT), "--max-warnings", "0", "src", "demo"],
        cwd=LABEXTENSION,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert found.returncode == 0, found.stdout + found.stderr


if __name__ == "__main__":
    edges, unresolved = graph()
    for name in sorted(edges):
        print(name, "->", ", ".join(sorted(edges[name])))
    print("unresolved:", unresolved)
    print("cycles:", find_cycles(edges))
