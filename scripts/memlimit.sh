#!/bin/sh
# Runs the hook under address-space limits (`ulimit -v`) from LOW to HIGH KB, on a 1 MB Write,
# a 100 KB here-doc and a small Write, and counts the calls that ended with neither exit 0 nor
# exit 2: Claude Code runs the tool after those. docs/SECURITY.md ("A second crash").
#
#   scripts/memlimit.sh [BIN] [LOW] [HIGH] [STEP]
# Every call runs with HOME, the XDG dirs and PALISADE_DATA_DIR in a scratch folder.
set -eu
bin=${1:-target/release/palisade}
low=${2:-13000}
high=${3:-40000}
step=${4:-500}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME="$scratch/home" XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" \
  XDG_STATE_HOME="$scratch/state" XDG_CACHE_HOME="$scratch/cache" PALISADE_DATA_DIR="$scratch/pal"
mkdir -p "$HOME/project"
python3 - "$scratch" "$HOME/project" <<'EOF'
import json, sys
out, cwd = sys.argv[1], sys.argv[2]
code = "".join(f"def handler_{i}(request):\n    return render(request, 'page_{i}.html')\n" for i in range(20000))
def event(tool, tool_input):
    return {"session_id": "memlimit", "cwd": cwd, "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": tool_input, "tool_use_id": "t1"}
events = {
    "write-1m": event("Write", {"file_path": f"{cwd}/big.py", "content": code[:1 << 20]}),
    "heredoc-100k": event("Bash", {"command": "cat > data.txt <<'EOF'\n" + code[:100 << 10] + "\nEOF"}),
    "write": event("Write", {"file_path": f"{cwd}/small.py", "content": "print('hi')\n"}),
}
for name, e in events.items():
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(e, f)
EOF
runs=0
bad=0
limit=$low
while [ "$limit" -le "$high" ]; do
  for ev in write-1m heredoc-100k write; do
    runs=$((runs + 1))
    code=$( (ulimit -v "$limit"; "$bin" hook < "$scratch/$ev.json" > /dev/null 2>&1; echo $?) 2>/dev/null || true)
    if [ "$code" != 0 ] && [ "$code" != 2 ]; then
      bad=$((bad + 1))
      echo "ulimit -v $limit, $ev: exit $code"
    fi
  done
  limit=$((limit + step))
done
echo "memlimit: $bad of $runs calls ended with neither exit 0 nor exit 2"
[ "$bad" -eq 0 ]
