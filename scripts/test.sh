#!/usr/bin/env bash
# Every test: installs what they need (ns-2 from Debian and GNU time, tshark to read our pcap
# files, chromium to open the report page, the Python tooling), builds tcplab, then runs the Rust tests and the Python tests (which
# include the comparisons with ns-2). ns-3 is for the benchmarks only (bench/install.sh without
# --no-ns3).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash bench/install.sh --no-ns3
bash scripts/apt-install.sh tshark chromium chromium-driver
# emulation (tcplab emulate): namespaces and veth pairs, offloads off, ping and iperf3 inside
bash scripts/apt-install.sh iproute2 ethtool iputils-ping iperf3
bash scripts/setup.sh
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
fi
# The code's form first: rustfmt's layout (rustfmt.toml) and no clippy warning, in every crate
# and test. rustup installs the two components where they are missing.
if command -v rustup >/dev/null 2>&1; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
cargo fmt --all --check
cargo clippy --workspace --all-targets --quiet -- -D warnings
# The PyO3 crate only links inside a Python process, so it is tested through pytest.
cargo test --workspace --exclude tcplab-py
.venv/bin/pytest -q python/tests
