#!/usr/bin/env bash
# Builds tcplab-sim, the core's own command (crates/cli), profile-guided (scripts/pgo.sh), and
# prints its path: instrumented into target/pgo-train, optimised into target/pgo. On the
# project's machine S2 runs about 20% faster, S3 13% and S4 9% (bench/README.md, "The
# profile-guided build"), with the same outputs bit for bit. Nothing is rebuilt or trained again
# while the sources stay the same.
#
# Without llvm-profdata (rustup's llvm-tools), this builds target/release/tcplab-sim plainly and
# says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
log() { echo "build-sim: $*" >&2; }
source scripts/pgo.sh

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! profdata=$(pgo_profdata); then
    log "no llvm-profdata (rustup component add llvm-tools): building without a profile"
    cargo build --release -q -p tcplab-cli --target-dir "$ROOT/target"
    echo "$ROOT/target/release/tcplab-sim"
    exit 0
fi

train="$ROOT/target/pgo-train"
# Build scripts and proc macros are instrumented too; their counts go to builds/, unused.
CARGO_ENCODED_RUSTFLAGS=$(pgo_rustflags "-Cprofile-generate=$train/builds") \
    cargo build --release -q -p tcplab-cli --target-dir "$train"
instrumented="$train/release/tcplab-sim"

# One instrumented run per scenario. A run that fails still counts (tcplab-sim exits through
# main); it is named so that the failure is seen.
run_scenarios() {
    local out s
    out=$(mktemp -d)
    for s in "${PGO_TRAINING[@]}"; do
        "$instrumented" "$s" --out "$out" >/dev/null 2>&1 || log "training run failed: $s"
    done
    rm -rf "$out"
}
profile=$(pgo_profile "$profdata" "$train" "$instrumented" run_scenarios)
CARGO_ENCODED_RUSTFLAGS=$(pgo_rustflags "-Cprofile-use=$profile") \
    cargo build --release -q -p tcplab-cli --target-dir "$ROOT/target/pgo"
echo "$ROOT/target/pgo/release/tcplab-sim"
