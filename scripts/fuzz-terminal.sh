#!/usr/bin/env bash
# The terminal toolkit's long fuzz runs (TerminalToolkit.md, "Tests"):
#
# 1. the seeded property test of TextFuzzTests over many seeds (random text of every Unicode
#    category through every widget and the renderer, judged by glibc's wcwidth);
# 2. libFuzzer on `terminal-fuzz` (the key decoder, a form and the renderer, from raw bytes),
#    built with -sanitize=fuzzer in its own build folder, for SECONDS seconds.
#
#   scripts/fuzz-terminal.sh [SEEDS] [SECONDS]
#
# Defaults: seeds 1-2000, 300 seconds. A failing seed replays with
#   TETHER_FUZZ_SEED=S swift test --filter TextFuzzTests
# and an input libFuzzer saved (crash-*, in .build-fuzz/artifacts) with
#   swift run terminal-fuzz .build-fuzz/artifacts/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-1-2000}
seconds=${2:-300}

TETHER_FUZZ_SEEDS="$seeds" swift test --filter TextFuzzTests

# libFuzzer without its main (terminal-fuzz's main runs libFuzzer's driver), from the toolchain.
library=$(ls "$(dirname "$(readlink -f "$(command -v swiftc)")")"/../lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a | head -1)
TETHER_FUZZ="$library" swift build --scratch-path .build-fuzz --product terminal-fuzz
mkdir -p .build-fuzz/corpus .build-fuzz/artifacts
.build-fuzz/debug/terminal-fuzz .build-fuzz/corpus -max_total_time="$seconds" -max_len=4096 \
  -artifact_prefix=.build-fuzz/artifacts/ -print_final_stats=1
