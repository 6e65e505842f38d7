#!/usr/bin/env python3
"""Prints the strongly connected groups of top-level modules in src/ (import cycles), from
their `crate::` paths outside comments and test code, and exits 1 when there is one (CI runs
it: a cycle between pipeline stages must not come back). Run from the repository root.

Each edge of a group is printed with the file that makes it, so a cycle says where to cut."""
import os
import re
import sys

ROOT = 'src'


def strip_comments(txt):
    """Drops `//` comments (doc comments included), `/* */` blocks and the text of string
    literals (a URL's `//` in a string is not a comment; a `crate::` in one is not a path)."""
    out = []
    i, n = 0, len(txt)
    while i < n:
        c = txt[i]
        raw = re.match(r'r(#*)"', txt[i:i + 12]) if c == 'r' and (i == 0 or not (txt[i - 1].isalnum() or txt[i - 1] == '_')) else None
        if raw:
            end = txt.find('"' + raw.group(1), i + raw.end())
            j = n if end < 0 else end + 1 + len(raw.group(1))
            out.append('""')
            i = j
        elif c == '"':
            j = i + 1
            while j < n and txt[j] != '"':
                j += 2 if txt[j] == '\\' else 1
            out.append('""')
            i = j + 1
        elif txt.startswith('//', i):
            j = txt.find('\n', i)
            i = n if j < 0 else j
        elif txt.startswith('/*', i):
            j = txt.find('*/', i + 2)
            i = n if j < 0 else j + 2
        elif c == "'" and i + 2 < n and (txt[i + 2] == "'" or (txt[i + 1] == '\\')):
            # A char literal ('"', '\'', '\n'); lifetimes ('a) fall through.
            j = txt.find("'", i + 3 if txt[i + 1] == '\\' else i + 1)
            j = i + 2 if j < 0 else j
            out.append(txt[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def strip_tests(txt):
    """Drops `#[cfg(test)]` items: `mod tests;` lines and `mod x { ... }` blocks."""
    out, pos = [], 0
    for m in re.finditer(r'#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*([;{])', txt):
        if m.start() < pos:
            continue
        out.append(txt[pos:m.start()])
        if m.group(1) == ';':
            pos = m.end()
            continue
        depth, j = 1, m.end()
        while j < len(txt) and depth:
            depth += {'{': 1, '}': -1}.get(txt[j], 0)
            j += 1
        pos = j
    out.append(txt[pos:])
    return ''.join(out)


def use_groups(txt):
    """The first segment of every path in `use crate::{a, b::{c, d}, e}` (nested braces too)."""
    firsts = set()
    for m in re.finditer(r'use\s+crate::\{', txt):
        depth, j, start, parts = 1, m.end(), m.end(), []
        while j < len(txt) and depth:
            ch = txt[j]
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
                if depth == 0:
                    parts.append(txt[start:j])
            elif ch == ',' and depth == 1:
                parts.append(txt[start:j])
                start = j + 1
            j += 1
        for p in parts:
            p = p.strip()
            if p:
                firsts.add(re.split(r'[:\s{]', p)[0])
    return firsts


def modules(root=ROOT):
    """{module: {module it imports: [files that do]}}, for the top-level modules of `root`."""
    mods = {}
    for dp, _, fn in os.walk(root):
        for f in sorted(fn):
            if not f.endswith('.rs') or f == 'tests.rs':
                continue
            p = os.path.join(dp, f)
            rel = os.path.relpath(p, root)
            top = rel.split(os.sep)[0].removesuffix('.rs')
            if top in ('lib', 'main'):
                continue
            txt = strip_tests(strip_comments(open(p, encoding='utf-8').read()))
            deps = set(re.findall(r'crate::([a-z_][a-z0-9_]*)', txt)) | use_groups(txt)
            edges = mods.setdefault(top, {})
            for d in deps - {top}:
                edges.setdefault(d, []).append(rel)
    return {k: {d: fs for d, fs in v.items() if d in mods} for k, v in mods.items()}


def groups(mods):
    """Tarjan's strongly connected components with more than one module."""
    idx, low, stack, on, res, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        idx[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in mods[v]:
            if w not in idx:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                res.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(mods):
        if v not in idx:
            visit(v)
    return res


def self_test():
    """The checker on a made-up tree: a real cycle through a nested `use` group is found; edges
    only in comments, strings and test modules are not."""
    import tempfile
    files = {
        'a.rs': 'use crate::{x::{y, z}, b::Thing};\n',
        'b/mod.rs': '//! See `crate::c`.\nuse crate::c::f;\n',
        'b/more.rs': 'fn g() { let s = "crate::a // not a comment"; }\n',
        'c.rs': 'use crate::a;\n/* crate::b */\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n',
        'd.rs': 'fn f() { crate::c::f(); } // crate::a\n',
        'x.rs': '',
    }
    with tempfile.TemporaryDirectory() as root:
        for name, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
            open(os.path.join(root, name), 'w').write(text)
        found = groups(modules(root))
        assert found == [['a', 'b', 'c']], found
        files['c.rs'] = files['c.rs'].replace('use crate::a;', '')
        open(os.path.join(root, 'c.rs'), 'w').write(files['c.rs'])
        found = groups(modules(root))
        assert found == [], found
    print('self-test passed')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    mods = modules()
    res = groups(mods)
    if not res:
        print('no cycles')
        return 0
    print(res)
    for comp in res:
        for a in comp:
            for d in sorted(x for x in mods[a] if x in comp):
                print(f'{a} -> {d}  ({", ".join(sorted(set(mods[a][d])))})')
    return 1


if __name__ == '__main__':
    sys.exit(main())
