#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60). Needs a nightly toolchain and
# cargo-fuzz (installed here when missing). A crash stops the run and leaves its input in
# fuzz/artifacts/<target>/; turn it into a regression test before fixing it.
#
# Usage: scripts/fuzz.sh [SECONDS=60] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
shift || true
if [ "$SECONDS_EACH" = 0 ]; then
  echo "fuzz: 0 seconds asked; skipped" >&2
  exit 0
fi
if ! rustup toolchain list | grep -q '^nightly'; then
  echo "fuzz: no nightly toolchain (rustup toolchain install nightly); skipped" >&2
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz >/dev/null
fi
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  mapfile -t TARGETS < <(cargo +nightly fuzz list)
fi
for t in "${TARGETS[@]}"; do
  echo "fuzz: $t for ${SECONDS_EACH}s"
  mkdir -p "fuzz/corpus/$t"
  cargo +nightly fuzz run "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
    -max_total_time="$SECONDS_EACH" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=0
done
