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
