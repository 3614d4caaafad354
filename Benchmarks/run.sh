#!/bin/sh
# Runs every Tether benchmark (W1-W5, W7, W8, P1-P3b, P7-P10, S1-S3 and T1/T2 with package-benchmark; W6
# with TetherMemory; P4-P6 and the idle watcher with TetherLatency) in
# release mode and prints the tables of docs/PERFORMANCE.md. Extra arguments go to
# `swift package benchmark` (for example: ./run.sh --filter "W1.*").
# The raw outputs are kept in $RESULTS (default: .build/results).
set -eu
cd "$(dirname "$0")"
RESULTS=${RESULTS:-.build/results}
mkdir -p "$RESULTS"

# package-benchmark builds the benchmark target in release mode itself. --scale prints
# per-sample totals, which summarize.py divides (more digits than the scaled output).
swift package --disable-sandbox benchmark --no-progress --scale --format markdown --path stdout "$@" \
    > "$RESULTS/benchmarks.md"

# W6 (TetherMemory) and P4-P6 (TetherLatency) are not package-benchmark benchmarks: with
# --filter they run only if a filter (a regular expression, matched whole) matches "W6" or
# "P4"/"P5"/"P6", so that ./run.sh --filter "T[0-9].*" runs T1/T2 alone.
filters=""
next_is_filter=false
for arg in "$@"; do
    if $next_is_filter; then
        filters="$filters
$arg"
        next_is_filter=false
    else
        case "$arg" in
            --filter) next_is_filter=true ;;
            --filter=*) filters="$filters
${arg#--filter=}" ;;
        esac
    fi
done
wanted() {
    [ -z "$filters" ] && return 0
    found=1
    set -f
    saved_ifs=$IFS
    IFS='
'
    for filter in $filters; do
        if printf '%s\n' "$1" | grep -Eqx -- "$filter"; then found=0; fi
    done
    IFS=$saved_ifs
    set +f
    return $found
}

w6=""
if wanted W6; then
    swift build -c release --product TetherMemory
    "$(swift build -c release --show-bin-path)/TetherMemory" > "$RESULTS/w6.md"
    w6="$RESULTS/w6.md"
fi

latency=false
if wanted P4 || wanted P5 || wanted P6; then
    swift build -c release --product TetherLatency
    "$(swift build -c release --show-bin-path)/TetherLatency" > "$RESULTS/p4-p6.md"
    latency=true
fi

python3 summarize.py "$RESULTS/benchmarks.md" $w6
if $latency; then cat "$RESULTS/p4-p6.md"; fi
