#!/usr/bin/env bash
# Installs what `tcplab bench` compares with and measures by: Debian's ns-2.35 (through
# conformance/install-ns2.sh), GNU time for the peak memory, and ns-3.37's development package
# with a C++ compiler to build bench/ns3/dumbbell.cc (not with --no-ns3). Idempotent.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash conformance/install-ns2.sh

packages=(time)
if [ "${1:-}" != "--no-ns3" ]; then
    packages+=(libns3-dev g++)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "bench/install: ${packages[*]} already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-cache show "${missing[@]}" >/dev/null 2>&1; then
    $SUDO apt-get update
fi
# A stale list can point at versions the mirror no longer has: update once and retry.
if ! $SUDO apt-get install -y "${missing[@]}"; then
    $SUDO apt-get update
    $SUDO apt-get install -y "${missing[@]}"
fi
echo "bench/install: installed ${missing[*]}"
