#!/usr/bin/env python3
"""Interleaved A/B timing of whole processes: each round spawns every configuration once, in
turn, on the same stdin, so load drift on a shared machine falls on all of them alike.

Usage: scripts/spawn_ab.py EVENT.json ROUNDS LABEL=[DATA_DIR]:COMMAND... 
  LABEL=DIR:cmd args   runs `cmd args` with PALISADE_DATA_DIR=DIR (empty DIR: unchanged)
Example (docs/PERFORMANCE.md, "Measured again, interleaved"):
  scripts/spawn_ab.py event.json 400 cat=:cat wal=/tmp/a:"palisade hook" ck=/tmp/b:"palisade hook"
Prints the median, quartiles, p90 and p99 of each configuration's wall time, and the median CPU time
(user + system, from wait4, then each of them and the minor page faults) of the process (the
kernel splits the time between user and system by tick samples, so for a process of a few
milliseconds the split is read over many rounds, and a median of 0 means most rounds had no
sample there; the sum is exact): the CPU time moves less with the machine's load,
the wall time shows what the caller waits for (a process that sleeps, or waits to be
scheduled, costs wall time only)."""
import os
import statistics
import subprocess
import sys
import time


def spawn(argv, data, env=None):
    """Runs argv with `data` on stdin (stdout and stderr discarded); returns the wall time
    from spawn to exit, in seconds, and the process's resource usage."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env)
    try:
        p.stdin.write(data)
        p.stdin.close()
    except BrokenPipeError:
        pass
    _, _, usage = os.wait4(p.pid, 0)
    p.returncode = 0
    return time.perf_counter() - t0, usage


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
    cpu = {label: [] for label, _, _ in configs}
    # user time, system time and minor page faults, each round
    split = {label: [] for label, _, _ in configs}
    for _ in range(rounds):
        for label, argv, env in configs:
            elapsed, usage = spawn(argv, data, env)
            times[label].append(elapsed)
            cpu[label].append(usage.ru_utime + usage.ru_stime)
            split[label].append((usage.ru_utime, usage.ru_stime, usage.ru_minflt))
    for label, _, _ in configs:
        t = sorted(times[label])
        q = len(t) // 4
        print(f"{label:12} median {1e3 * statistics.median(t):.3f} ms  "
              f"p25 {1e3 * t[q]:.3f}  p75 {1e3 * t[3 * q]:.3f}  "
              f"p90 {1e3 * t[len(t) * 9 // 10]:.3f}  p99 {1e3 * t[len(t) * 99 // 100]:.3f}  "
              f"cpu {1e3 * statistics.median(cpu[label]):.3f} ms  "
              f"(user {1e3 * statistics.median(u for u, _, _ in split[label]):.3f}, "
              f"sys {1e3 * statistics.median(s for _, s, _ in split[label]):.3f}, "
              f"minor faults {statistics.median(f for _, _, f in split[label]):.0f})")


if __name__ == "__main__":
    main()
