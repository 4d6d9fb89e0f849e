#!/usr/bin/env bash
# Install the ACP agents the real-agent tests run, and the newest Claude Code and Codex CLIs
# people install directly (the real-CLI hook tests run against those as well as against the
# ones the ACP adapters bundle), each pinned, in a folder of its own:
#
#   ${JUPYTER_PLANS_AGENTS:-$HOME/.cache/jupyter-plans/agents}/{claude-0.101,claude-0.23,codex-2.6}
#   ${JUPYTER_PLANS_AGENTS:-$HOME/.cache/jupyter-plans/agents}/{claude-code-2.1.332,codex-0.171}
#
# and the newest CLIs people install, which the adapters run through CLAUDE_CODE_EXECUTABLE and
# CODEX_PATH (claude-code-2.1.332, codex-0.171).
#
# Each folder is an npm prefix (a package.json `{"private":true}` and node_modules/). A folder
# whose package is already there at its pinned version is left as it is, so a CI cache of this
# folder (400+ MB each) is reused and a second run installs nothing. Without Node and npm it says
# so and exits 0: the real-agent tests then skip (or fail, in CI) with the reason.
set -euo pipefail

ROOT="${JUPYTER_PLANS_AGENTS:-$HOME/.cache/jupyter-plans/agents}"
# folder, package, version
AGENTS=(
  "claude-0.101 @agentclientprotocol/claude-agent-acp 0.101.0"
  "claude-0.23 @zed-industries/claude-agent-acp 0.23.1"
  "codex-2.6 @agentclientprotocol/codex-acp 2.6.0"
  "claude-code-2.1.332 @anthropic-ai/claude-code 2.1.332"
  "codex-0.171 @openai/codex 0.171.0"
)

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "agents: node and npm are missing; the real-agent tests will skip" >&2
  exit 0
fi

installed_version() {  # the version of package $2 under prefix $1, or nothing
  node -e 'try { process.stdout.write(require(process.argv[1]).version) } catch (e) {}' \
    "$1/node_modules/$2/package.json"
}

mkdir -p "$ROOT"
for agent in "${AGENTS[@]}"; do
  read -r folder package version <<<"$agent"
  prefix="$ROOT/$folder"
  if [ "$(installed_version "$prefix" "$package")" = "$version" ]; then
    echo "agents: $folder has $package@$version"
    continue
  fi
  echo "agents: installing $package@$version into $prefix"
  mkdir -p "$prefix"
  [ -f "$prefix/package.json" ] || echo '{"private":true}' >"$prefix/package.json"
  (cd "$prefix" && npm install --no-audit --no-fund --loglevel=error "$package@$version" </dev/null)
  found="$(installed_version "$prefix" "$package")"
  if [ "$found" != "$version" ]; then
    echo "agents: $package in $prefix is ${found:-missing} after install, not $version" >&2
    exit 1
  fi
done
