#!/usr/bin/env python3
"""Interleaved A/B timing of whole processes: each round spawns every configuration once, in
turn, on the same stdin, so load drift on a shared machine falls on all of them alike.

Usage: scripts/spawn_ab.py EVENT.json ROUNDS LABEL=[DATA_DIR]:COMMAND... 
  LABEL=DIR:cmd args   runs `cmd args` with PALISADE_DATA_DIR=DIR (empty DIR: unchanged)
Example (docs/PERFORMANCE.md, "Measured again, interleaved"):
  scripts/spawn_ab.py event.json 400 cat=:cat wal=/tmp/a:"palisade hook" ck=/tmp/b:"palisade hook"
Prints the median and quartiles of each configuration's wall time."""
import os
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    data = open(sys.argv[1], "rb").read()
    rounds = int(sys.argv[2])
    configs = []
    for spec in sys.argv[3:]:
        label, rest = spec.split("=", 1)
        data_dir, cmd = rest.split(":", 1)
        env = dict(os.environ)
        if data_dir:
            env["PALISADE_DATA_DIR"] = data_dir
        configs.append((label, cmd.split(), env))
    times = {label: [] for label, _, _ in configs}
    for _ in range(rounds):
        for label, argv, env in configs:
            t0 = time.perf_counter()
            subprocess.run(argv, input=data, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env)
            times[label].append(time.perf_counter() - t0)
    for label, _, _ in configs:
        t = sorted(times[label])
        q = len(t) // 4
        print(f"{label:12} median {1e3 * statistics.median(t):.3f} ms  "
              f"p25 {1e3 * t[q]:.3f}  p75 {1e3 * t[3 * q]:.3f}")


if __name__ == "__main__":
    main()
