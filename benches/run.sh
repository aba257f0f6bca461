#!/usr/bin/env bash
# Regenerate BENCHMARKS.md: build ward (release), prepare the workloads in a temporary
# directory, measure native vs `ward exec --mode audit -q` vs `strace -f --seccomp-bpf`, and
# (when installed) the startup of `codex sandbox` and `srt`. About 10 minutes on 2 cores.
#
#   benches/run.sh [--runs N] [--only make,find,git,forkexec,pywalk,openat,true] [--keep]
#
# Environment: CARGO_TARGET_DIR (where ward is built; default the workspace's target/),
# WARD_BENCH_PEERS=0 to skip installing/measuring codex and srt, WARD_BENCH_PEERS_DIR
# (default ~/.cache/ward-bench/peers) where they are installed with npm.
# Not part of the test suite.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

need_apt=()
command -v hyperfine >/dev/null || need_apt+=(hyperfine)
command -v strace >/dev/null || need_apt+=(strace)
command -v gcc >/dev/null || need_apt+=(gcc)
command -v make >/dev/null || need_apt+=(make)
command -v git >/dev/null || need_apt+=(git)
command -v python3 >/dev/null || need_apt+=(python3)
if ((${#need_apt[@]})); then
    echo "bench: installing ${need_apt[*]}" >&2
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get install -y "${need_apt[@]}" >&2 || $SUDO sh -c "apt-get update && apt-get install -y ${need_apt[*]}" >&2
fi

echo "bench: building ward (release)" >&2
cargo build --release -p ward >&2
target="${CARGO_TARGET_DIR:-$repo/target}"
ward="$target/release/ward"
[ -x "$ward" ] || { echo "bench: $ward was not built" >&2; exit 1; }

peers_dir="${WARD_BENCH_PEERS_DIR:-$HOME/.cache/ward-bench/peers}"
if [ "${WARD_BENCH_PEERS:-1}" != 0 ]; then
    if [ ! -x "$peers_dir/node_modules/.bin/srt" ] || [ ! -x "$peers_dir/node_modules/.bin/codex" ]; then
        if command -v npm >/dev/null; then
            echo "bench: installing the peers (codex, srt) into $peers_dir" >&2
            mkdir -p "$peers_dir"
            [ -f "$peers_dir/package.json" ] || echo '{"private": true}' >"$peers_dir/package.json"
            # srt needs bubblewrap, socat and ripgrep.
            for p in bwrap:bubblewrap socat:socat rg:ripgrep; do
                command -v "${p%%:*}" >/dev/null || apt-get install -y "${p##*:}" >&2 || true
            done
            (cd "$peers_dir" && timeout 300 npm install --no-audit --no-fund \
                @anthropic-ai/sandbox-runtime @openai/codex >&2) ||
                echo "bench: could not install the peers; their columns will be missing" >&2
        else
            echo "bench: npm not found; no codex/srt columns" >&2
        fi
    fi
else
    set -- --no-peers "$@"
fi

exec python3 "$repo/benches/bench.py" --ward "$ward" --peers-dir "$peers_dir" "$@"
