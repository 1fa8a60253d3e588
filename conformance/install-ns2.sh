#!/usr/bin/env bash
# Install Debian's ns-2.35 (`ns2`) and its example/test-suite tree (`ns2-examples`).
# Idempotent: does nothing if both are already installed.
set -euo pipefail

if command -v ns >/dev/null 2>&1 && dpkg -s ns2-examples >/dev/null 2>&1; then
    echo "install-ns2: ns already installed at $(command -v ns)"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only if apt does not know the package yet
# (a fresh image has empty lists; a warm one need not hit the mirror again).
if ! apt-cache show ns2 >/dev/null 2>&1; then
    $SUDO apt-get update
fi
# A stale list can point at versions the mirror no longer has: update once and retry.
if ! $SUDO apt-get install -y ns2 ns2-examples; then
    $SUDO apt-get update
    $SUDO apt-get install -y ns2 ns2-examples
fi

command -v ns >/dev/null 2>&1 || { echo "install-ns2: ns still not on PATH" >&2; exit 1; }
echo "install-ns2: installed $(command -v ns)"
