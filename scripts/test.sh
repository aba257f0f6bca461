#!/usr/bin/env bash
# Runs ward's whole test suite: unit tests, integration tests (real processes under a real
# supervisor), the escape suite, and the root/unprivileged variants.
# Installs what the tests need first (Debian packages, npm agents) when it can.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-test-deps.sh
# The agent CLIs setup-test-deps.sh installed (tests/agents_e2e.rs, tests/report_agents.rs).
export WARD_AGENTS_BIN=${WARD_AGENTS_BIN:-${WARD_AGENTS_DIR:-$HOME/.cache/ward-test-agents}/node_modules/.bin}
export CARGO_TERM_COLOR=never
cargo build --release --workspace --all-targets
cargo test --release --workspace -- --test-threads=2
# The README's first command, as written there (it broke once when the workspace gained a
# second binary).
cargo run --release -q -- demo >/dev/null
echo "README: cargo run --release -- demo: ok"
