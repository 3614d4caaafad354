#!/bin/sh
# Runs every Tether benchmark (W1-W5, W7, W8 and P1-P3b with package-benchmark; W6 with TetherMemory;
# P4-P6 and the idle watcher with TetherLatency) in
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

swift build -c release --product TetherMemory
"$(swift build -c release --show-bin-path)/TetherMemory" > "$RESULTS/w6.md"

swift build -c release --product TetherLatency
"$(swift build -c release --show-bin-path)/TetherLatency" > "$RESULTS/p4-p6.md"

python3 summarize.py "$RESULTS/benchmarks.md" "$RESULTS/w6.md"
cat "$RESULTS/p4-p6.md"
