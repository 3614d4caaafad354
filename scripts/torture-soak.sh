#!/usr/bin/env bash
# The long soak of the torture test (Sources/TetherSQLite/TetherSQLite.docc/Persistence.md,
# "The torture test"): a release build of tether-torture, then SEEDS seeds of OPERATIONS
# operations per worker, with kills and faults.
#
#   scripts/torture-soak.sh [FIRST_SEED] [SEEDS] [OPERATIONS] [WORKERS]
#
# Defaults: seeds 1...20, 10,000 operations, 3 workers. Prints one line per seed and every
# violation; exits 1 if any seed failed. A failing seed replays with
#   .build/release/tether-torture run --seed S --operations OPERATIONS --workers WORKERS
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:-1}
seeds=${2:-20}
operations=${3:-10000}
workers=${4:-3}
swift build -c release --product tether-torture
.build/release/tether-torture run --seeds "$first...$((first + seeds - 1))" --operations "$operations" --workers "$workers"
