#!/usr/bin/env python3
"""Writes the link order of palisade's hot code (scripts/link-order.txt, which
scripts/build.sh gives the linker): every function the installed build executes on the bench
corpus, those that most calls run first.

Usage: scripts/hot_functions.py BIN EVENTS_DIR > scripts/link-order.txt
  BIN         the installed build with its symbols: `scripts/build.sh symbols` builds it and
              prints its path (the same profile, so the same symbol names)
  EVENTS_DIR  the corpus's events (`scripts/bench.py events DIR`)

Why: a hook process lives for one call, and most of what it pays beyond a spawn of `cat` is
mapping the pages it touches. The linker places functions in the order of their crates and
modules, so a call's code lies scattered over the 10 MB of text, and each first touch of a
64 KB window is a page fault. Laid out together, the code a call runs spans a few windows.
Each event runs under callgrind (which sees every function executed, not a sample), in order,
on one state directory, so each meets the session state the corpus leaves, as in the bench.
A name the linker no longer finds (after a rename) is skipped: the order is a layout, never a
behaviour, and a stale file only costs speed.
"""
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict


def costs(callgrind_out):
    """Self cost (instructions) of each function in one callgrind output file."""
    cost = defaultdict(int)
    names = {}
    current = None
    after_calls = False
    with open(callgrind_out) as f:
        for line in f:
            if line.startswith("fn="):
                current = name_of(line[3:].strip(), names)
            elif line.startswith("calls="):
                # The next cost line is the call's inclusive cost, not this function's own.
                after_calls = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_calls:
                    after_calls = False
                elif current is not None:
                    parts = line.split()
                    if len(parts) >= 2:
                        cost[current] += int(parts[-1])
            elif line.startswith(("cfn=", "cfi=", "cob=")):
                if line.startswith("cfn="):
                    name_of(line[4:].strip(), names)
    return cost


def name_of(spec, names):
    """Resolves callgrind's compressed names: `(id) name` defines, `(id)` refers."""
    if spec.startswith("("):
        ident, _, rest = spec.partition(")")
        rest = rest.strip()
        if rest:
            names[ident] = rest
        spec = names.get(ident, rest)
    # `name'2` is callgrind's name for a recursive call's second level: the same symbol.
    return re.sub(r"'\d+$", "", spec)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, events = sys.argv[1], sys.argv[2]
    runs_in = defaultdict(set)
    total = defaultdict(int)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PALISADE_DATA_DIR=os.path.join(tmp, "state"))
        for i, event in enumerate(sorted(os.listdir(events))):
            out = os.path.join(tmp, f"cg.{i}")
            with open(os.path.join(events, event), "rb") as stdin:
                subprocess.run(
                    ["valgrind", "--tool=callgrind", "--demangle=no",
                     f"--callgrind-out-file={out}", binary, "hook"],
                    stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    env=env, check=False)
            if not os.path.exists(out):
                sys.exit(f"hot_functions: callgrind wrote nothing for {event}")
            for name, c in costs(out).items():
                runs_in[name].add(i)
                total[name] += c
    # Code of the binary only: callgrind also names the dynamic loader's and the kernel's.
    # The code every call runs comes first; then the functions that run for the same events
    # lie side by side, so one kind of call touches a run of pages, not a page here and there.
    names = [n for n in runs_in if not n.startswith(("0x", "("))]
    order = sorted(names, key=lambda n: (-len(runs_in[n]), sorted(runs_in[n]), -total[n], n))
    for name in order:
        print(name)


if __name__ == "__main__":
    main()
