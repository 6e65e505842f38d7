#!/usr/bin/env python3
"""One event sent again and again to each build, each in a state dir of its own, with a spawn
of `cat` on the same input before every round; the calls' times grouped by the size of the
session's WAL when the call started. A write call adds frames to the WAL until a commit makes
a checkpoint due (64 pages), which hands it to a process of its own (`__settle-ledger`); so the
groups are the steps of that cycle, and the call that makes the checkpoint due is the one that
starts with the most frames before it. A WAL bigger than that means a settling process had
not finished when the next call started.

The home directory is the parent of the event's `cwd` (as scripts/bench.py makes them); the
state dir and XDG dirs are scratch ones.

Usage: scripts/wal_cycle.py EVENT.json CALLS LABEL=BINARY... [--seed DIR]
  --seed DIR   copy DIR as each build's starting state dir (default: an empty one)
Example (docs/PERFORMANCE.md, "A spawn held to its CPU"):
  scripts/wal_cycle.py write.json 300 old=/tmp/old/palisade new=target/release/palisade
Prints Markdown: per build, each WAL size's calls, median, p90 and max, then every call's
median, p90 and p99; and the median of `cat`."""
import glob
import json
import os
import shutil
import statistics
import sys
import tempfile

from spawn_ab import spawn


def wal_bytes(data_dir):
    return sum(os.path.getsize(f) for f in glob.glob(os.path.join(data_dir, "ledger", "*.db-wal")))


def ms(t):
    return f"{1e3 * t:.2f}"


def main():
    args = sys.argv[1:]
    seed = None
    if "--seed" in args:
        i = args.index("--seed")
        seed = args[i + 1]
        del args[i:i + 2]
    if len(args) < 3:
        sys.exit(__doc__)
    data = open(args[0], "rb").read()
    calls = int(args[1])
    scratch = tempfile.mkdtemp(prefix="wal-cycle.")
    builds = []
    for spec in args[2:]:
        label, binary = spec.split("=", 1)
        data_dir = os.path.join(scratch, label)
        if seed:
            shutil.copytree(seed, data_dir)
        else:
            os.makedirs(data_dir)
        # As scripts/bench.sh runs it: the event's project in the home directory.
        home = os.path.dirname(json.loads(data).get("cwd", "/").rstrip("/")) or "/"
        env = dict(os.environ, PALISADE_DATA_DIR=data_dir, HOME=home)
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            env[var] = os.path.join(data_dir, "xdg", var.lower())
        builds.append((label, [binary, "hook"], env, data_dir))
    times = {label: [] for label, _, _, _ in builds}
    cat = []
    for _ in range(calls):
        cat.append(spawn(["cat"], data)[0])
        for label, argv, env, data_dir in builds:
            before = wal_bytes(data_dir)
            times[label].append((before, spawn(argv, data, env)[0]))
    for label, _, _, _ in builds:
        print(f"\n{label}\n\n| WAL bytes at start | calls | median ms | p90 ms | max ms |")
        print("|---:|---:|---:|---:|---:|")
        groups = {}
        for before, t in times[label]:
            groups.setdefault(before, []).append(t)
        for before in sorted(groups):
            t = sorted(groups[before])
            print(f"| {before} | {len(t)} | {ms(statistics.median(t))} | "
                  f"{ms(t[len(t) * 9 // 10])} | {ms(t[-1])} |")
        t = sorted(t for _, t in times[label])
        print(f"\nall {len(t)} calls: median {ms(statistics.median(t))} ms, "
              f"p90 {ms(t[len(t) * 9 // 10])} ms, p99 {ms(t[len(t) * 99 // 100])} ms")
    print(f"\ncat: median {ms(statistics.median(cat))} ms")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
