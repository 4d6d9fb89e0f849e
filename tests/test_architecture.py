"""The shape of the package holds: no import circle, no module over 400 lines, and each folder
imports only from the folders below it (docs/architecture.md draws the floors); a folder's
`__init__.py` is short, and so is every function unless its first line says why not.

Imports inside functions count; imports under `if TYPE_CHECKING:` do not for the floors (they
never run), and do for the circles: a circle of types is a circle a reader has to hold.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.helpers.imports import PACKAGE, find_cycles, graph, modules

MAX_LINES = 400
MAX_INIT_LINES = 60  # a folder's __init__.py says its job and re-exports
MAX_FUNCTION_LINES = 60  # longer only with a comment on its first line that says why

# The floors, lowest first. A module may import from its own floor's folder and from any
# floor below; never from a floor above, nor from another folder on its own floor.
FLOORS: list[set[str]] = [
    {"errors", "json_lite", "lazy"},
    {"plan"},
    {"store"},
    {"session"},
    {"journal"},
    {"agents"},  # the agent's side; the person's surfaces above call into it
    {"card"},  # what a card shows, for the surfaces that show one
    {"hooks", "notebook", "server"},
    {"cli"},
    {"__init__", "tools"},  # the public names
]


def floor_of(module: str) -> tuple[int, str]:
    parts = module.split(".")
    folder = parts[1] if len(parts) > 1 else "__init__"
    for number, names in enumerate(FLOORS):
        if folder in names:
            return number, folder
    raise AssertionError(f"{module} is in no floor: add its folder to FLOORS and the docs")


def test_the_graph_sees_the_imports_it_should():
    """The reader of imports is itself checked: it finds relative, absolute and in-function
    imports, and skips TYPE_CHECKING ones."""
    edges = graph()
    assert "jupyter_plans.plan.models" in edges["jupyter_plans.session.events"]
    assert "jupyter_plans.notebook.magics" in edges["jupyter_plans"]  # imported in a function
    assert len(edges) > 50


def test_no_import_circle():
    cycles = find_cycles(graph())
    assert cycles == [], "import circles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_no_import_circle_even_for_type_checkers():
    """In every folder (and across them), counting the imports written only for type checkers:
    a module that names another's types still depends on it."""
    edges = graph(types=True)
    assert "jupyter_plans.session.plan_session" in edges["jupyter_plans.session.bound"]
    cycles = find_cycles(edges)
    assert cycles == [], "import circles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_circle_finder_sees_a_circle_of_types():
    edges = {"a.x": {"a.y"}, "a.y": {"a.x"}, "a.z": {"a.x"}}
    assert find_cycles(edges) == [["a.x", "a.y"]]


@pytest.mark.parametrize("module", sorted(modules()))
def test_no_module_over_400_lines(module):
    lines = len(modules()[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module} has {lines} lines; the limit is {MAX_LINES}"


def test_imports_run_only_downward():
    wrong = []
    for module, targets in graph().items():
        floor, folder = floor_of(module)
        for target in targets:
            target_floor, target_folder = floor_of(target)
            if target_floor > floor or (target_floor == floor and target_folder != folder):
                wrong.append(f"{module} -> {target}")
    assert wrong == [], "imports that run up or across: " + ", ".join(sorted(wrong))


def _imports_mcp(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] == "mcp" for alias in node.names)
    return (
        isinstance(node, ast.ImportFrom) and not node.level and node.module.split(".")[0] == "mcp"
    )


def test_only_the_mcp_server_imports_mcp_and_only_the_command_imports_it():
    """mcp is the `mcp` extra (Jupyter AI 3.2's environment holds mcp 1.x): the MCP server's
    modules alone import it (mcp_lines, its check of the client's lines, is loaded by the
    server only), and only `jupyter-plans mcp` loads the server, after checking the version
    (agents.mcp_requirement, which imports mcp inside its function)."""
    found = {}
    for module, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        at_top = any(_imports_mcp(node) for node in tree.body)
        anywhere = any(_imports_mcp(node) for node in ast.walk(tree))
        if anywhere:
            found[module] = at_top
    assert found == {
        "jupyter_plans.agents.mcp_server": True,
        "jupyter_plans.agents.mcp_lines": True,
        "jupyter_plans.agents.mcp_requirement": False,
    }
    importers = [
        n for n, targets in graph().items() if "jupyter_plans.agents.mcp_server" in targets
    ]
    assert importers == ["jupyter_plans.cli"]
    lines = [n for n, targets in graph().items() if "jupyter_plans.agents.mcp_lines" in targets]
    assert lines == ["jupyter_plans.agents.mcp_server"]


def test_every_folder_says_its_job_in_its_init():
    for init in sorted(PACKAGE.rglob("__init__.py")):
        if "labextension" in init.parts:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc, f"{init.relative_to(PACKAGE.parent)} has no docstring saying its job"


@pytest.mark.parametrize(
    "init",
    sorted(p for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE),
    ids=lambda p: str(p.parent.relative_to(PACKAGE)),
)
def test_a_folders_init_is_short(init):
    lines = len(init.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_INIT_LINES, (
        f"{init.relative_to(PACKAGE.parent)} has {lines} lines; a folder's __init__.py says its "
        f"job and re-exports, in at most {MAX_INIT_LINES}"
    )


def long_functions(path: Path, root: Path = PACKAGE.parent) -> list[str]:
    """The functions of a file over MAX_FUNCTION_LINES lines (their decorators and docstring
    counted) whose first line has no comment saying why."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        length = node.end_lineno - first + 1
        if length > MAX_FUNCTION_LINES and "#" not in lines[node.lineno - 1]:
            found.append(f"{path.relative_to(root)}:{node.lineno} {node.name} {length}")
    return found


def test_no_function_over_60_lines_without_a_reason():
    found = [entry for path in modules().values() for entry in long_functions(path)]
    assert found == [], (
        f"functions over {MAX_FUNCTION_LINES} lines (split them along their seams, or say on "
        "their first line why one long function is clearest): " + ", ".join(found)
    )


def test_a_long_function_is_found_unless_it_says_why(tmp_path):
    body = "".join(f"    x = {i}\n" for i in range(MAX_FUNCTION_LINES))
    example = tmp_path / "example.py"
    example.write_text(
        f"def long():\n{body}\n\ndef said():  # one table, read as one\n{body}"
        f"\n\ndef short():\n{body[: -len(body) // 2]}",
        encoding="utf-8",
    )
    assert long_functions(example, tmp_path) == [f"example.py:1 long {MAX_FUNCTION_LINES + 1}"]


def test_no_private_module_at_the_root():
    private = sorted(p.name for p in PACKAGE.glob("_*.py") if p.name != "__init__.py")
    assert private == [], f"private modules at the package root: {private}"


if __name__ == "__main__":
    edges = graph()
    for name in sorted(edges):
        print(name, "->", ", ".join(sorted(t.removeprefix("jupyter_plans.") for t in edges[name])))
    print("cycles:", find_cycles(edges))


# Coding-agent hosts are data: what differs between them is in their own modules in
# agents/hosts/ (named after the host), and everything else asks agents/hosts/registry.py.
HOST_WORDS = ("claude", "codex")
HOSTS_FOLDER = "agents/hosts/"
# Lines outside the hosts' modules that may name one, each with why.
HOST_NAME_EXCEPTIONS = {
    # The registry's one table of the hosts.
    ("agents/hosts/registry.py", "from . import claude_code, codex"),
    ("agents/hosts/registry.py", "HOSTS = {host.ID: host for host in (claude_code, codex)}"),
    # The folder's index says which modules are the hosts'.
    (
        "agents/hosts/__init__.py",
        '"""The coding-agent hosts of the hooks, as data: one module per host (`claude_code`, '
        "`codex`:",
    ),
    # The hook command's help, as the person reads it in `--help`.
    ("cli.py", 'help="answer a coding agent\'s hook (Claude Code, Codex CLI) from the plan; "'),
    (
        "hooks/command.py",
        'description="Answer a coding agent\'s hook (Claude Code, Codex CLI) from the plan; the "',
    ),
}
# The ACP bridge's agents are described by their profiles (agents/acp/profiles/, data); its
# modules name an agent's command (the default, `claude-agent-acp`) and what the scripted one
# mimics. They are ACP agents, not hosts of the hooks.
HOST_NAME_FOLDERS_APART = ("agents/acp/",)


def host_names_outside_hosts(package: Path) -> list[str]:
    """`file:line: text` for each line of the package outside a host's module that names a
    host, less the listed exceptions."""
    found = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name.startswith(HOST_NAME_FOLDERS_APART):
            continue
        if name.startswith(HOSTS_FOLDER) and name[len(HOSTS_FOLDER) :].startswith(HOST_WORDS):
            continue  # a host's own module (claude_code.py, codex_trust.py, ...)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            words = line.strip()
            if any(word in words.lower() for word in HOST_WORDS):
                if (name, words) not in HOST_NAME_EXCEPTIONS:
                    found.append(f"{name}:{number}: {words}")
    return found


def test_no_module_but_a_hosts_own_names_a_host():
    found = host_names_outside_hosts(PACKAGE)
    assert found == [], (
        "lines that name a host outside its own module (ask agents/hosts/registry.py):\n"
        + "\n".join(found)
    )


def test_every_listed_exception_is_still_there():
    """An exception no line needs any more is taken off the list."""
    for name, words in HOST_NAME_EXCEPTIONS:
        lines = [line.strip() for line in (PACKAGE / name).read_text("utf-8").splitlines()]
        assert words in lines, f"{name} no longer says {words!r}: drop it from the exceptions"


OPENER = "store/opener.py"  # the one place a plan file is opened with SQLite (DESIGN section 9)


def sqlite_opens(source: str) -> list[int]:
    """The lines of `source` that call sqlite3.connect on anything but a database in memory."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        if node.func.attr != "connect" or not (
            isinstance(owner, ast.Name) and owner.id == "sqlite3"
        ):
            continue
        first = node.args[0] if node.args else None
        if not (isinstance(first, ast.Constant) and first.value == ":memory:"):
            lines.append(node.lineno)
    return lines


def test_only_the_opener_opens_a_plan_file_with_sqlite():
    """Every other module asks store/opener.py, which keeps the rules of the locks: a second
    way in would be a second place to break them."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name != OPENER:
            found += [f"{name}:{n}" for n in sqlite_opens(path.read_text(encoding="utf-8"))]
    assert found == [], "sqlite3.connect outside the opener: " + ", ".join(found)
    assert sqlite_opens((PACKAGE / OPENER).read_text(encoding="utf-8"))


def test_the_opener_rule_sees_a_connect_and_passes_one_in_memory():
    source = "import sqlite3\na = sqlite3.connect(':memory:')\nb = sqlite3.connect(str(p))\n"
    assert sqlite_opens(source) == [3]


# The plan's tables are read and written by named statements (store/statements.py and the
# modules it reads), so that one search finds every query of a table. These few are written
# where they run, each for a reason:
STATEMENT_HOMES = {
    "store/statements.py",
    "store/comment_statements.py",
    "store/move_statements.py",
    "store/schema.py",  # the tables themselves
    "store/migrations.py",  # each version's DDL as written then (frozen)
}
SQL_EXCEPTIONS = {
    # The hook's fast deny path reads the mode with the standard library's sqlite3 and does not
    # depend on the shipped forms of the statements.
    "store/readonly.py": 2,  # the gate, and the schema version the hook checks before it
    "store/following/moves.py": 1,  # the move a session followed, on the same path
    "store/postgres.py": 1,  # the change token: PostgreSQL's own functions, one round trip
    "store/sqlite.py": 1,  # a new file's version row, written with its tables
}
TABLE_SQL = re.compile(
    r"\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|FROM|JOIN)\s+(?:plans_\w+|guard_seen)\b", re.I
)


def table_sql(source: str) -> list[int]:
    """The lines of `source` whose string literals (f-strings too) query a plan table."""
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        else:
            continue
        if TABLE_SQL.search(text):
            lines.add(node.lineno)  # an f-string's parts are its own constants too: once
    return sorted(lines)


def test_the_plans_tables_are_queried_by_named_statements():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name not in STATEMENT_HOMES:
            lines = table_sql(path.read_text(encoding="utf-8"))
            if lines:
                found[name] = len(lines)
    assert found == SQL_EXCEPTIONS, "SQL of the plan's tables outside the statements: " + str(
        {name: n for name, n in found.items() if SQL_EXCEPTIONS.get(name) != n}
    )


def test_the_statement_rule_sees_a_query_in_an_f_string():
    source = 'a = "SELECT 1"\nb = f"SELECT seq FROM plans_events WHERE x = {x}"\n'
    assert table_sql(source) == [2]
