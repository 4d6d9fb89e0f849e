"""The coding-agent hooks (Claude Code, Codex CLI): the plan at the host's hook points, and the
installer that registers them for a project."""
