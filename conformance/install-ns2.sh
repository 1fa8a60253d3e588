#!/usr/bin/env bash
# Install Debian's ns-2.35 (`ns2`) and its example/test-suite tree (`ns2-examples`).
# Idempotent: does nothing if both are already installed.
set -euo pipefail

bash "$(dirname "${BASH_SOURCE[0]}")/../scripts/apt-install.sh" ns2 ns2-examples
command -v ns >/dev/null 2>&1 || { echo "install-ns2: ns still not on PATH" >&2; exit 1; }
echo "install-ns2: ns is $(command -v ns)"
