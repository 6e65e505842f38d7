#!/usr/bin/env bash
# Whole hook calls, as Claude Code makes them: spawn `palisade hook`, feed one event on stdin,
# read the answer. Prints the median per-call time over ROUNDS rounds of N calls each, beside
# the cost of spawning `cat` on the same input, and their ratio.
#
# Usage: scripts/bench.sh [N=200] [ROUNDS=11]
# Runs in an isolated HOME and state dir; builds the release binary first.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
ROUNDS=${2:-11}
cargo build --release --quiet
BIN=$PWD/target/release/palisade
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export HOME=$TMP/home XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_CACHE_HOME=$TMP/cache \
  XDG_STATE_HOME=$TMP/state CLAUDE_CONFIG_DIR=$TMP/home/.claude PALISADE_DATA_DIR=$TMP/state/palisade
unset PALISADE_CONFIG CLAUDE_PROJECT_DIR
mkdir -p "$HOME/project"

event() { printf '{"session_id":"bench","hook_event_name":"PreToolUse","cwd":"%s","tool_name":"Bash","tool_input":{"command":"%s"}}' "$HOME/project" "$1"; }
event 'cargo build --release && cargo test' > "$TMP/pass.json"
event 'rm -rf ~' > "$TMP/deny.json"

# per_call CMD FILE: median over rounds of (elapsed ns / N), in microseconds.
per_call() {
  local cmd=$1 file=$2 samples=()
  for _ in $(seq "$ROUNDS"); do
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$N"); do $cmd < "$file" > /dev/null 2>&1 || true; done
    end=$(date +%s%N)
    samples+=($(( (end - start) / N / 1000 )))
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

cat_us=$(per_call "cat" "$TMP/pass.json")
pass_us=$(per_call "$BIN hook" "$TMP/pass.json")
deny_us=$(per_call "$BIN hook" "$TMP/deny.json")
echo "machine: $(nproc) cores, $(uname -sm); date: $(date -u +%Y-%m-%d)"
echo "calls per round: $N, rounds: $ROUNDS (median of rounds)"
printf 'spawn cat            %6d us/call\n' "$cat_us"
printf 'palisade hook (pass) %6d us/call  (%.2fx cat)\n' "$pass_us" "$(awk "BEGIN{print $pass_us/$cat_us}")"
printf 'palisade hook (deny) %6d us/call  (%.2fx cat)\n' "$deny_us" "$(awk "BEGIN{print $deny_us/$cat_us}")"
