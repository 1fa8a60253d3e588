#!/bin/bash
# Compares two builds of tcplab-sim (copy the old one aside before rebuilding: plain builds from
# cargo in target/release, or the profile-guided ones the bench times, from scripts/build-sim.sh).
#   bash bench/two-builds.sh same OLD NEW            every scenario under scenarios/ and
#                                                    conformance/ns2/, every output file compared
#   bash bench/two-builds.sh time OLD NEW SCENARIO [N]   wall time, the builds alternating N
#                                                    times (default 3): fastest and median
#   bash bench/two-builds.sh instructions OLD NEW SCENARIO   instructions each build executes
#                                                    (valgrind's cachegrind): a count that a
#                                                    noisy machine does not move
set -u
cd "$(dirname "$0")/.."
mode=$1 old=$2 new=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
case $mode in
same)
    compared=0 failed=0 differ=0
    for f in scenarios/*/*.toml conformance/ns2/*/*.toml; do
        case ${f##*/} in suite.toml | skipped.toml) continue ;; esac # a suite's lists, not scenarios
        rm -rf "$out/a" "$out/b"
        "$old" "$f" --out "$out/a" >/dev/null 2>&1; a=$?
        "$new" "$f" --out "$out/b" >/dev/null 2>&1; b=$?
        if [ $a != 0 ] || [ $b != 0 ]; then
            [ $a != $b ] && { echo "exit status differs: $f ($a, $b)"; differ=$((differ + 1)); }
            failed=$((failed + 1))
            continue
        fi
        compared=$((compared + 1))
        for file in "$out"/a/*; do
            cmp -s "$file" "$out/b/${file##*/}" || { echo "differs: $f ${file##*/}"; differ=$((differ + 1)); }
        done
    done
    echo "$compared scenarios compared, $failed failed in both, $differ differences"
    [ $differ = 0 ] ;;
time)
    scenario=$4 n=${5:-3}
    for i in $(seq "$n"); do
        for b in "$old" "$new"; do
            TIMEFORMAT="$b %R"
            { time "$b" "$scenario" --out "$out/t" >/dev/null 2>&1; } 2>>"$out/times"
        done
    done
    python3 - "$out/times" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    b, s = line.rsplit(maxsplit=1)
    t[b].append(float(s))
for b, v in t.items():
    print(f"{b}: fastest {min(v):.3f} s, median {statistics.median(v):.3f} s of {len(v)}")
PY
    ;;
instructions)
    scenario=$4
    for b in "$old" "$new"; do
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
            "$b" "$scenario" --out "$out/i" 2>&1 >/dev/null |
            awk -v b="$b" '/I *refs:/ { gsub(",", "", $NF); printf "%s: %.3f G instructions\n", b, $NF / 1e9 }'
    done ;;
*) echo "usage: bash bench/two-builds.sh same|time|instructions OLD NEW [SCENARIO [N]]" >&2; exit 2 ;;
esac
