"""The coding-agent hosts of the hooks, as data: one module per host (`claude_code`, `codex`:
its id, its name, its settings file, how it announces itself to a hook, its checks), beside
the modules only that host uses, and `registry`, which everything outside this folder asks and
which names no host but in its one table."""
