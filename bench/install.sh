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
bash scripts/apt-install.sh "${packages[@]}"
