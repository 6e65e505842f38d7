#!/usr/bin/env python3
"""Writes the link order of palisade's hot code (scripts/link-order-TARGET.txt, which
scripts/build.sh gives the linker when it builds for TARGET): every function the installed
build executes on the bench corpus, those that most calls run first.

Usage: scripts/hot_functions.py BIN EVENTS_DIR > scripts/link-order-TARGET.txt
       scripts/hot_functions.py --self-test
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
            elif line.startswith("cfn="):
                # A callee's name may be defined here, to be referred to by its id later.
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


def link_order(runs_in, total):
    """The functions in link order, from the events each ran in and its instructions."""
    # Code of the binary only: callgrind also names the dynamic loader's and the kernel's.
    # The code every call runs comes first; then the functions that run for the same events
    # lie side by side, so one kind of call touches a run of pages, not a page here and there.
    names = [n for n in runs_in if not n.startswith(("0x", "("))]
    return sorted(names, key=lambda n: (-len(runs_in[n]), sorted(runs_in[n]), -total[n], n))


def self_test():
    """The parser and the order on a small callgrind file, as CI runs it."""
    sample = "\n".join([
        "events: Ir",
        "fl=(1) a.rs",
        "fn=(1) main",
        "3 10",
        "cfn=(2) helper",
        "calls=2 0",
        "4 500",
        "5 7",
        "fn=(2)",
        "6 40",
        "fn=(3) rec'2",
        "7 3",
        "fn=(4) 0x000000000001ab70",
        "8 9",
        "",
    ])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cg")
        with open(path, "w") as f:
            f.write(sample)
        got = dict(costs(path))
    # A call's inclusive cost (500) is not the caller's own; `(2)` names `helper` again.
    want = {"main": 17, "helper": 40, "rec": 3, "0x000000000001ab70": 9}
    assert got == want, got
    runs_in = {"main": {0, 1, 2}, "write": {1, 2}, "bash": {0}, "edit": {1, 2}, "0x1": {0, 1, 2}}
    total = {"main": 5, "write": 9, "bash": 100, "edit": 10, "0x1": 1}
    order = link_order(runs_in, total)
    assert order == ["main", "edit", "write", "bash"], order
    print("self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, events = sys.argv[1], sys.argv[2]
    runs_in = defaultdict(set)
    total = defaultdict(int)
    with tempfile.TemporaryDirectory() as tmp:
        # A home of its own: the calls read and write state like the bench's, not the user's.
        env = dict(os.environ, HOME=tmp, PALISADE_DATA_DIR=os.path.join(tmp, "state"))
        for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"),
                         ("XDG_STATE_HOME", "xstate"), ("XDG_CACHE_HOME", "cache")):
            env[var] = os.path.join(tmp, sub)
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
    for name in link_order(runs_in, total):
        print(name)


if __name__ == "__main__":
    main()
