#!/usr/bin/env bash
# Installs what ward's tests use: strace (the reference tracer), gcc/make (payload programs),
# git, python3, and for the peer comparisons bubblewrap/socat/ripgrep. Idempotent; as non-root
# it only reports what is missing.
set -euo pipefail
need=()
for pair in strace:strace gcc:gcc make:make git:git python3:python3 bwrap:bubblewrap socat:socat rg:ripgrep setpriv:util-linux script:bsdutils; do
  cmd=${pair%%:*}; pkg=${pair#*:}
  command -v "$cmd" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q "${need[@]}" >/dev/null
  else
    echo "missing packages (install as root): ${need[*]}" >&2
  fi
fi

# The real agent CLIs for tests/agents_e2e.rs and tests/report_agents.rs, in a cache folder
# (scripts/test.sh points WARD_AGENTS_BIN at its node_modules/.bin). Failure is not fatal: the
# agent tests then skip and say so.
agents_dir=${WARD_AGENTS_DIR:-$HOME/.cache/ward-test-agents}
if [ ! -x "$agents_dir/node_modules/.bin/claude" ] || [ ! -x "$agents_dir/node_modules/.bin/codex" ]; then
  if command -v npm >/dev/null 2>&1; then
    mkdir -p "$agents_dir"
    if ! npm install --prefix "$agents_dir" --no-audit --no-fund --loglevel=error \
        @anthropic-ai/claude-code @openai/codex >"$agents_dir/npm-install.log" 2>&1; then
      echo "could not install the agent CLIs into $agents_dir (see $agents_dir/npm-install.log): the agent tests will skip" >&2
    fi
  else
    echo "npm missing: the agent CLIs are not installed and the agent tests will skip" >&2
  fi
fi
