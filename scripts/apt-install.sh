#!/usr/bin/env bash
# Installs Debian packages that are missing: `bash scripts/apt-install.sh PACKAGE...`.
# Idempotent: does nothing when every package is installed. Used by the other install scripts.
set -euo pipefail

missing=()
for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "apt-install: $* already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only if apt does not know a package yet (a fresh image has empty
# lists; a warm one need not hit the mirror again).
if ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
    $SUDO apt-get update
fi
# A stale list can point at versions the mirror no longer has: update once and retry.
if ! $SUDO apt-get install -y "${missing[@]}"; then
    $SUDO apt-get update
    $SUDO apt-get install -y "${missing[@]}"
fi
echo "apt-install: installed ${missing[*]}"
