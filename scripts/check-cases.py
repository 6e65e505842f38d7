#!/usr/bin/env python3
"""Validates challenge-set files: every line valid JSON with the frozen fields, ids unique
across all files, and prints counts per file and per expected verdict.

Usage: scripts/check-cases.py [challenge-sets/]
"""
import collections
import json
import pathlib
import sys

EXPECTS = {"allow", "ask", "deny", "block", "pass"}
TOOL_PATH_KEYS = {"Read": "file_path", "Write": "file_path", "Edit": "file_path",
                  "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}


def check_event(ev, where, errors):
    if not isinstance(ev, dict):
        errors.append(f"{where}: event is not an object")
        return
    for key in ("hook_event_name", "session_id", "cwd", "tool_name", "tool_input"):
        if key not in ev:
            errors.append(f"{where}: event lacks `{key}`")
    if not isinstance(ev.get("tool_input"), dict):
        errors.append(f"{where}: tool_input is not an object")
        return
    tool = ev.get("tool_name")
    if tool == "Bash" and not isinstance(ev["tool_input"].get("command"), str):
        errors.append(f"{where}: Bash without a string `command`")
    key = TOOL_PATH_KEYS.get(tool)
    if key:
        path = ev["tool_input"].get(key)
        if not isinstance(path, str):
            errors.append(f"{where}: {tool} without `{key}`")


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "challenge-sets")
    errors, ids = [], {}
    per_file = collections.OrderedDict()
    per_expect = collections.Counter()
    for path in sorted(root.glob("*.jsonl")):
        counts = collections.Counter()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.name}:{n}"
            if not line.strip():
                errors.append(f"{where}: blank line")
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as e:
                errors.append(f"{where}: not JSON ({e})")
                continue
            cid = case.get("id")
            if not isinstance(cid, str) or not cid:
                errors.append(f"{where}: missing id")
            elif cid in ids:
                errors.append(f"{where}: duplicate id {cid} (first at {ids[cid]})")
            else:
                ids[cid] = where
            if not isinstance(case.get("category"), str):
                errors.append(f"{where}: missing category")
            if "policy" in case and not isinstance(case["policy"], (str, dict)):
                errors.append(f"{where}: policy is neither YAML text nor an object")
            if "steps" in case:
                for i, step in enumerate(case["steps"]):
                    check_event(step.get("event"), f"{where} step {i}", errors)
                    if "expect" in step and step["expect"] not in EXPECTS:
                        errors.append(f"{where} step {i}: bad expect {step['expect']!r}")
                    counts[step.get("expect", "-")] += 1
                continue
            if case.get("expect") not in EXPECTS:
                errors.append(f"{where}: bad expect {case.get('expect')!r}")
            check_event(case.get("event"), where, errors)
            counts[case.get("expect")] += 1
        per_file[path.name] = counts
        per_expect.update(counts)
    for name, counts in per_file.items():
        detail = " ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        print(f"{name:32} {sum(counts.values()):4}  {detail}")
    total = sum(per_expect.values())
    print(f"{'total':32} {total:4}  " + " ".join(f"{k}={v}" for k, v in sorted(per_expect.items())))
    for e in errors:
        print("error:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
