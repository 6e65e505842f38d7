#!/usr/bin/env python3
"""WAL frames a call adds to its session's ledger store (docs/AUDIT.md, "No fsync per call").

Usage: scripts/wal_frames.py PALISADE EVENTS_DIR EVENT.json [N]
  Feeds every event of EVENTS_DIR (`scripts/bench.py events DIR` writes the corpus there) to
  PALISADE in a scratch state dir, then EVENT N times (10), each with a new tool_use_id as
  Claude Code sends them, and prints the frames each call added to the WAL. A call whose
  commit checkpointed the WAL (it shrank) is left out."""
import glob
import json
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    palisade, events, event = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    scratch = tempfile.mkdtemp(prefix="palisade-wal-")
    env = dict(os.environ, PALISADE_DATA_DIR=os.path.join(scratch, "state"))
    for x in ("CONFIG", "DATA", "STATE", "CACHE"):
        env[f"XDG_{x}_HOME"] = os.path.join(scratch, x.lower())

    def run(path):
        with open(path, "rb") as f:
            subprocess.run([palisade, "hook"], stdin=f, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env, check=False)

    def frames():
        wal = glob.glob(os.path.join(scratch, "state", "ledger", "*.db-wal"))
        return max(0, os.path.getsize(wal[0]) - 32) // (4096 + 24) if wal else 0

    for path in sorted(glob.glob(os.path.join(events, "*.json"))):
        run(path)
    with open(event) as f:
        e = json.load(f)
    added = []
    for i in range(n):
        e["tool_use_id"] = f"toolu_wal_frames_{i}"
        path = os.path.join(scratch, "event.json")
        with open(path, "w") as f:
            json.dump(e, f)
        before = frames()
        run(path)
        after = frames()
        if after >= before:
            added.append(after - before)
    print(f"{os.path.basename(event)}: frames per call {added}")


if __name__ == "__main__":
    main()
