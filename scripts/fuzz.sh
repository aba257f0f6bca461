#!/usr/bin/env bash
# Runs every cargo-fuzz target for N seconds each (default 60), one after another: the
# decoders of data that comes from the supervised tree and the config parser (fuzz/), and the
# strace importer (crates/ward-report/fuzz). Not part of the test suite; needs a nightly
# toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
#
#   scripts/fuzz.sh            # every target, 60 s each
#   scripts/fuzz.sh 300        # 5 minutes each
#   scripts/fuzz.sh 60 dns sockaddr   # only these targets
#
# The committed seeds in fuzz/corpus/<target>/ are read but not written to: each run grows a
# scratch corpus in fuzz/target/corpus/<target>/ (git-ignored). A crash leaves its input in
# fuzz/artifacts/<target>/ and makes the script exit non-zero after the remaining targets ran.
# Extra libFuzzer flags can be passed in FUZZ_FLAGS (e.g. FUZZ_FLAGS="-jobs=2 -workers=2").
set -u
secs="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"

# target:fuzz-crate-directory
all=(
    sockaddr:fuzz
    event_json:fuzz
    dns:fuzz
    pathutil:fuzz
    proc_status:fuzz
    open_how:fuzz
    shell_split:fuzz
    config:fuzz
    strace_import:crates/ward-report/fuzz
)
selected=()
if [ $# -gt 0 ]; then
    for want in "$@"; do
        found=
        for t in "${all[@]}"; do
            [ "${t%%:*}" = "$want" ] && selected+=("$t") && found=1
        done
        [ -n "$found" ] || { echo "fuzz.sh: unknown target $want" >&2; exit 2; }
    done
else
    selected=("${all[@]}")
fi

failed=()
for t in "${selected[@]}"; do
    name="${t%%:*}"
    dir="$root/${t#*:}"
    scratch="$dir/target/corpus/$name"
    mkdir -p "$scratch" "$dir/artifacts/$name"
    echo "== $name: ${secs}s ($dir)"
    # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
    if ! (cd "$dir" && cargo +nightly fuzz run -O "$name" "$scratch" "corpus/$name" -- \
            -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 ${FUZZ_FLAGS:-} \
            2>&1 | tee "$dir/target/$name.log" | grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+== ERROR|SUMMARY|Done )'); then
        :
    fi
    if grep -qE 'ERROR: libFuzzer|panicked at|deadly signal|SUMMARY: .*Sanitizer' "$dir/target/$name.log"; then
        echo "!! $name crashed: see $dir/target/$name.log and $dir/artifacts/$name/"
        failed+=("$name")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "crashed: ${failed[*]}"
    exit 1
fi
echo "all targets ran ${secs}s without a crash"
