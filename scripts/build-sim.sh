#!/usr/bin/env bash
# Builds tcplab-sim, the core's own command (crates/cli), profile-guided, and prints its path.
#
# An instrumented build (target/pgo-train) runs every scenario under scenarios/, and the release
# build (target/pgo) is laid out and inlined by what those runs did: on the project's machine
# S2 runs about 20% faster, S3 13% and S4 9% (bench/README.md, "The profile-guided build"), with
# the same outputs bit for bit. Nothing is rebuilt or trained again while the sources stay the
# same. The profile is named by its hash, so that cargo rebuilds when it changes.
#
# Needs llvm-profdata of rustc's own LLVM: rustup's llvm-tools component, added here when rustup
# can. Without it, this builds target/release/tcplab-sim plainly and says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
log() { echo "build-sim: $*" >&2; }

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null 2>&1; then
    timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
fi
if [ ! -x "$profdata" ]; then
    log "no llvm-profdata (rustup component add llvm-tools): building without a profile"
    cargo build --release -q -p tcplab-cli
    echo "$ROOT/target/release/tcplab-sim"
    exit 0
fi

train="$ROOT/target/pgo-train"
# Build scripts and proc macros are instrumented too; their profiles go to builds/, unused.
RUSTFLAGS="-Cprofile-generate=$train/builds" cargo build --release -q -p tcplab-cli --target-dir "$train"
instrumented="$train/release/tcplab-sim"
stamp="$train/profile-of-$(sha256sum "$instrumented" | cut -c1-16)"
if [ ! -e "$stamp" ]; then
    log "training on scenarios/ (instrumented build)"
    rm -rf "$train/runs" "$train"/profile-of-*
    mkdir -p "$train/runs"
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
    for s in scenarios/*/*.toml; do
        LLVM_PROFILE_FILE="$train/runs/%m_%p.profraw" "$instrumented" "$s" --out "$out" >/dev/null 2>&1 \
            || log "training run failed, left out: $s"
    done
    "$profdata" merge -o "$train/merged.profdata" "$train/runs"
    mkdir -p "$ROOT/target/pgo"
    profile="$ROOT/target/pgo/profile-$(sha256sum "$train/merged.profdata" | cut -c1-16).profdata"
    cp "$train/merged.profdata" "$profile"
    echo "$profile" >"$stamp"
fi
profile=$(cat "$stamp")
RUSTFLAGS="-Cprofile-use=$profile" cargo build --release -q -p tcplab-cli --target-dir "$ROOT/target/pgo"
echo "$ROOT/target/pgo/release/tcplab-sim"
