#!/usr/bin/env bash
# tcplab's main job: build it if needed, then reproduce the wired-dumbbell study of Yew, Ong and
# Ahmad (shared/seeds/002_561d73994d48847d.txt): Tables V and VI, TCP Vegas against Tahoe, Reno,
# NewReno and SACK in the paper's four access environments, 3 seeds each, beside the paper's
# numbers and (when ns-2 is installed) ns-2.35's. The report goes to results/yew2011-wired/
# (report.md, report.html, figures); extra arguments go to `tcplab reproduce` (e.g. --quick).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
exec .venv/bin/tcplab reproduce yew2011-wired "$@"
