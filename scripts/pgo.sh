# Profile-guided builds, sourced by build-sim.sh (tcplab-sim) and setup.sh (the Python extension).
# A build is made twice: instrumented (-Cprofile-generate), which then runs every scenario under
# scenarios/, and optimised with what those runs counted (-Cprofile-use). A profile changes code
# layout and inlining, never a result. Source it from the repository's root.

# The training set: every scenario under scenarios/ (none of bench/'s own).
PGO_TRAINING=(scenarios/*/*.toml)

# Prints llvm-profdata of rustc's own LLVM (rustup's llvm-tools component, added when rustup
# can); fails when there is none.
pgo_profdata() {
    local host profdata
    host=$(rustc -vV | sed -n 's/^host: //p')
    profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
    if [ ! -x "$profdata" ] && command -v rustup >/dev/null 2>&1; then
        echo "$(basename "$0"): adding rustup's llvm-tools, for a profile-guided build" >&2
        timeout 300 rustup component add llvm-tools >/dev/null 2>&1 || true
    fi
    [ -x "$profdata" ] && echo "$profdata"
}

# pgo_rustflags FLAG: the user's RUSTFLAGS (split on spaces, as cargo splits them) and FLAG, as
# CARGO_ENCODED_RUSTFLAGS wants them: a path with spaces in FLAG stays one flag.
pgo_rustflags() {
    local f out=""
    for f in ${RUSTFLAGS:-}; do out+="$f"$'\x1f'; done
    printf '%s' "$out$1"
}

# pgo_profile PROFDATA DIR INSTRUMENTED COMMAND...: the profile of INSTRUMENTED (a file of the
# instrumented build), trained by COMMAND in the repository's root and kept in DIR. Training
# runs again only for a new instrumented build, and one run at a time (a lock in DIR). The
# profile's name carries its hash, so that cargo, which sees the flag and not the file,
# rebuilds when it changes. Prints its path.
pgo_profile() {
    local profdata=$1 dir=$2 instrumented=$3
    shift 3
    mkdir -p "$dir"
    (
        set -e # a command substitution does not inherit it
        flock 9
        stamp="$dir/profile-of-$(sha256sum "$instrumented" | cut -c1-16)"
        if [ ! -e "$stamp" ] || [ ! -e "$(cat "$stamp")" ]; then
            echo "$(basename "$0"): training a profile on scenarios/" >&2
            rm -rf "$dir/runs" "$dir"/profile-of-* "$dir"/profile-*.profdata
            mkdir -p "$dir/runs"
            LLVM_PROFILE_FILE="$dir/runs/%m_%p.profraw" "$@" >&2
            "$profdata" merge -o "$dir/merged.profdata" "$dir/runs"
            profile="$dir/profile-$(sha256sum "$dir/merged.profdata" | cut -c1-16).profdata"
            mv "$dir/merged.profdata" "$profile"
            echo "$profile" >"$stamp"
        fi
        cat "$stamp"
    ) 9>"$dir/.lock"
}
