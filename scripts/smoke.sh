#!/bin/sh
# The binary as installed (scripts/build.sh: statically linked on Linux, with musl when it can
# be), checked where the test suite's own build cannot speak for it: every challenge case, a
# deny and a pass through `palisade hook` as Claude Code spawns it, and a crash that must still
# be a recorded deny. In a scratch HOME and state dir.
#
# Usage: scripts/smoke.sh [BINARY]   (default: build it with scripts/build.sh)
set -eu
cd "$(dirname "$0")/.."
bin=${1:-$(scripts/build.sh)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data XDG_CACHE_HOME=$tmp/cache \
  XDG_STATE_HOME=$tmp/state CLAUDE_CONFIG_DIR=$tmp/home/.claude PALISADE_DATA_DIR=$tmp/state/palisade
unset PALISADE_CONFIG CLAUDE_PROJECT_DIR
mkdir -p "$HOME/project"
fail() { echo "smoke: $*" >&2; exit 1; }
echo "smoke: $bin ($(file -b "$bin" | grep -o 'statically linked\|dynamically linked' || echo '?'))"
"$bin" replay challenge-sets/ >"$tmp/replay.txt" || { tail -20 "$tmp/replay.txt"; fail "challenge cases failed"; }
tail -1 "$tmp/replay.txt"
event() { printf '{"session_id":"smoke","transcript_path":"%s/t.jsonl","cwd":"%s/project","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"}}' "$HOME" "$HOME" "$1"; }
code=0; event 'rm -rf ~' | "$bin" hook >/dev/null 2>&1 || code=$?
[ "$code" = 2 ] || fail "rm -rf ~ exited $code, not 2"
code=0; out=$(event 'git status' | "$bin" hook 2>/dev/null) || code=$?
[ "$code" = 0 ] && [ -z "$out" ] || fail "git status exited $code with '$out', not 0 and nothing"
code=0; event 'ls' | PALISADE_TEST_CRASH=stack "$bin" hook >/dev/null 2>&1 || code=$?
[ "$code" = 2 ] || fail "a stack overflow exited $code, not 2"
tail -1 "$PALISADE_DATA_DIR/audit.jsonl" | grep -q '"rule":"error/crash"' || fail "the crash was not recorded"
echo "smoke: ok"
