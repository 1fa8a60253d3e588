#!/usr/bin/env bash
# Development set-up: a virtualenv in .venv with the Python tooling, and tcplab (Rust extension
# included) built into it, so that .venv/bin/tcplab and .venv/bin/pytest work.
#
# Needs python3 (>= 3.10; 3.11 preferred) and cargo. The extension is built profile-guided when
# rustup's llvm-tools are at hand (scripts/pgo.sh), plainly otherwise. Idempotent: a second run
# only re-checks the packages (no download when they are present) and rebuilds the extension
# incrementally.
# PYTHON=/path/to/python overrides the interpreter used to create .venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
VENV="$ROOT/.venv"

log() { echo "setup: $*" >&2; }

# rustup puts cargo in ~/.cargo/bin, which a non-login shell may not have on PATH.
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null 2>&1 || { log "cargo not found (install Rust with rustup)"; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
    PY=${PYTHON:-}
    if [ -z "$PY" ]; then
        for c in python3.11 python3; do
            if command -v "$c" >/dev/null 2>&1; then PY=$c; break; fi
        done
    fi
    [ -n "$PY" ] || { log "python3 not found"; exit 1; }
    "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
        || { log "$PY is older than 3.10"; exit 1; }
    log "creating $VENV with $PY"
    if ! "$PY" -m venv "$VENV"; then
        # Debian ships the venv module (ensurepip) separately as pythonX.Y-venv.
        rm -rf "$VENV"
        ver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
        command -v apt-get >/dev/null 2>&1 || { log "cannot create a venv with $PY"; exit 1; }
        SUDO=""
        if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
        log "installing python$ver-venv"
        export DEBIAN_FRONTEND=noninteractive
        $SUDO apt-get update -q
        $SUDO apt-get install -y -q "python$ver-venv"
        "$PY" -m venv "$VENV"
    fi
fi

# Without --upgrade, pip does not go to the index for requirements already satisfied.
# dask.distributed runs sweeps on a cluster; matplotlib draws the figures; selenium lets the
# tests drive Debian's headless chromium over the report page.
"$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    "maturin>=1.5,<2" "pandas>=1.5" "pyarrow>=12" "pytest>=7" "hypothesis>=6" "dask[distributed]>=2023.1" "matplotlib>=3.6" \
    "selenium>=4.10"

# maturin develop installs into the virtualenv named by VIRTUAL_ENV.
export VIRTUAL_ENV="$VENV"
export PATH="$VENV/bin:$PATH"
quiet=""
help=$(maturin develop --help 2>&1 || true)  # not piped into grep -q: SIGPIPE + pipefail
case "$help" in *--quiet*) quiet="--quiet" ;; esac
export PIP_QUIET=1  # maturin calls pip for the dependencies; keep their "already satisfied" lines out
source scripts/pgo.sh
if profdata=$(pgo_profdata); then
    # Profile-guided (scripts/pgo.sh): S2 through tcplab.run 0.24 s plainly, 0.19 s so. Each
    # build keeps its own target directory, so that neither rebuilds the other's.
    train="$ROOT/target/pgo-py-train"
    log "building the extension instrumented (maturin develop --release), for its profile"
    CARGO_ENCODED_RUSTFLAGS=$(pgo_rustflags "-Cprofile-generate=$train/builds") \
        maturin develop --release $quiet --target-dir "$train"
    profile=$(pgo_profile "$profdata" "$train" "$train/release/lib_core.so" "$VENV/bin/python" -c '
import sys, tcplab
for s in sys.argv[1:]:
    try:
        tcplab.run(s)
    except Exception as e:
        print(f"training run failed: {s}: {e}", file=sys.stderr)' "${PGO_TRAINING[@]}")
    log "building the extension with that profile"
    CARGO_ENCODED_RUSTFLAGS=$(pgo_rustflags "-Cprofile-use=$profile") \
        maturin develop --release $quiet --target-dir "$ROOT/target/pgo-py"
else
    log "building the extension (maturin develop --release; no llvm-profdata for a profile-guided build)"
    maturin develop --release $quiet
fi
log "ready: $VENV/bin/tcplab"
