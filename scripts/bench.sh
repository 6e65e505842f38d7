#!/usr/bin/env bash
# Whole hook calls, as Claude Code makes them: spawn `palisade hook`, feed one event on stdin,
# read the answer, timed from spawn to exit by scripts/bench.py, each interleaved with a spawn
# of `cat` on the same input (and with the peers dcg and cc-safety-net when installed).
#
# Usage: scripts/bench.sh [ROUNDS=15] [GROWTH_CALLS=10000]
#   PEERS_DIR=DIR  where the peers are (or get) installed; default a scratch dir under /tmp.
#   NO_PEERS=1     skip the peers; NO_INSTALL=1 use them only if already installed.
#   NO_BUILD=1     use the release binary as it is (the static one when built).
#   PALISADE_BIN=FILE  the binary to time.
#   BASELINE_BIN=FILE  an earlier build, timed beside it on every corpus class (own state dir).
# Runs in an isolated HOME and state dir; builds the release binary first, as it is installed
# (scripts/build.sh: statically linked on Linux, with musl when it can be). Prints Markdown.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-15}
GROWTH=${2:-10000}
if [ -z "${PALISADE_BIN:-}" ]; then
  if [ -z "${NO_BUILD:-}" ]; then
    PALISADE_BIN=$(scripts/build.sh)
  else
    # `|| true`: ls fails on whichever of the two paths does not exist, and pipefail is on.
    PALISADE_BIN=$(ls -t target/*/release/palisade target/release/palisade 2>/dev/null | head -1 || true)
    [ -n "$PALISADE_BIN" ] || { echo "bench.sh: NO_BUILD=1 but no release build under target/" >&2; exit 1; }
  fi
fi
export PALISADE_BIN
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Copies are timed, as `scripts/build.sh install` (cargo install) puts one in place: the file
# the linker wrote was mapped by a hook process in smaller pieces, and a Bash call from it
# cost 15% more than from any copy of it (docs/PERFORMANCE.md, "The file the linker wrote").
mkdir -p "$TMP/bin"
cp "$PALISADE_BIN" "$TMP/bin/palisade"
PALISADE_BIN=$TMP/bin/palisade
if [ -n "${BASELINE_BIN:-}" ]; then
  export BASELINE_FROM=$BASELINE_BIN
  cp "$BASELINE_BIN" "$TMP/bin/baseline"
  export BASELINE_BIN=$TMP/bin/baseline
fi
# The peers' install below runs cargo (through rustup) under the scratch HOME: it is given the
# toolchains and the registry cache of the real one (palisade itself reads neither variable).
REAL_RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
REAL_CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache \
  XDG_STATE_HOME=$TMP/state CLAUDE_CONFIG_DIR=$TMP/home/.claude PALISADE_DATA_DIR=$TMP/state/palisade
unset PALISADE_CONFIG CLAUDE_PROJECT_DIR
export BENCH_PROJECT=$HOME/project
mkdir -p "$BENCH_PROJECT/src" "$BENCH_PROJECT/gen" "$BENCH_PROJECT/scripts" "$BENCH_PROJECT/docs"
printf 'fn main() {}\n' > "$BENCH_PROJECT/src/main.rs"
printf '# App\n\nUsage: app\n' > "$BENCH_PROJECT/README.md"
printf '[package]\nname = "app"\n' > "$BENCH_PROJECT/Cargo.toml"

# The peers, from their registries, into a scratch folder (skipped with a message otherwise).
PEERS_DIR=${PEERS_DIR:-/tmp/palisade-bench-peers}
export DCG_BIN= CSN_BIN=
if [ -z "${NO_PEERS:-}" ]; then
  mkdir -p "$PEERS_DIR"
  if [ ! -x "$PEERS_DIR/dcg/bin/dcg" ] && [ -z "${NO_INSTALL:-}" ]; then
    tc=+nightly
    RUSTUP_HOME=$REAL_RUSTUP_HOME rustup toolchain list | grep -q '^nightly' || tc=
    RUSTUP_HOME=$REAL_RUSTUP_HOME CARGO_HOME=$REAL_CARGO_HOME cargo $tc install destructive_command_guard --root "$PEERS_DIR/dcg" >"$PEERS_DIR/dcg.log" 2>&1 \
      || echo "dcg: install failed (see $PEERS_DIR/dcg.log); skipped" >&2
  fi
  [ -x "$PEERS_DIR/dcg/bin/dcg" ] && DCG_BIN=$PEERS_DIR/dcg/bin/dcg
  if [ ! -x "$PEERS_DIR/csn/node_modules/.bin/cc-safety-net" ] && [ -z "${NO_INSTALL:-}" ] && command -v npm >/dev/null; then
    npm install --prefix "$PEERS_DIR/csn" cc-safety-net >"$PEERS_DIR/csn.log" 2>&1 \
      || echo "cc-safety-net: install failed (see $PEERS_DIR/csn.log); skipped" >&2
  fi
  [ -x "$PEERS_DIR/csn/node_modules/.bin/cc-safety-net" ] && CSN_BIN=$PEERS_DIR/csn/node_modules/.bin/cc-safety-net
  [ -n "$DCG_BIN" ] || echo "dcg: not installed; skipped" >&2
  [ -n "$CSN_BIN" ] || echo "cc-safety-net: not installed; skipped" >&2
fi

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //'), $(uname -sr); load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null); date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "palisade $(git rev-parse --short HEAD 2>/dev/null || echo '?') ($(file -b "$PALISADE_BIN" 2>/dev/null | grep -o 'statically linked\|dynamically linked' || echo "$PALISADE_BIN")); dcg: ${DCG_BIN:+$("$DCG_BIN" --version 2>/dev/null | head -1)}; cc-safety-net: ${CSN_BIN:+$(node -e 'console.log(require(process.argv[1]).version)' "$PEERS_DIR/csn/node_modules/cc-safety-net/package.json" 2>/dev/null)}"
echo
python3 scripts/bench.py corpus "$ROUNDS"
echo
python3 scripts/bench.py sizes "$ROUNDS"
echo
python3 scripts/bench.py long 5
echo
python3 scripts/bench.py growth "$GROWTH"
