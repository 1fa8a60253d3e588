#!/usr/bin/env bash
# tcplab's main job: build it if needed, then run the wired-dumbbell study of Yew, Ong and
# Ahmad (shared/seeds/002_561d73994d48847d.txt) -- Tahoe, Reno and NewReno in the paper's four
# access environments, and the lossy variant -- printing per-flow goodput, delay and drops.
# Results (summary.json per scenario) go to results/yew2011-wired/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
exec .venv/bin/tcplab run scenarios/yew2011-wired/*.toml --out results/yew2011-wired "$@"
