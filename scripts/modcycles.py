#!/usr/bin/env python3
"""Prints the strongly connected groups of top-level modules in src/ (import cycles), from
their `crate::` paths outside test code. Run from the repository root."""
import os,re,sys
root='src'
mods={}
for dp,dn,fn in os.walk(root):
    for f in fn:
        if not f.endswith('.rs'): continue
        p=os.path.join(dp,f); rel=os.path.relpath(p,root)
        top=rel.split(os.sep)[0].removesuffix('.rs')
        if top in ('lib','main'): continue
        txt=open(p).read()
        # drop test modules roughly: text after '#[cfg(test)]\nmod tests'
        i=txt.find('#[cfg(test)]\nmod tests')
        if i>=0: txt=txt[:i]
        if rel.endswith('tests.rs'): continue
        deps=set(re.findall(r'crate::([a-z_]+)',txt))
        # use crate::{a, b::c}
        for grp in re.findall(r'use crate::\{([^}]*)\}',txt,re.S):
            for part in grp.split(','):
                part=part.strip()
                if part: deps.add(re.split(r'[:\s{]',part)[0])
        mods.setdefault(top,set()).update(d for d in deps if d!=top)
mods={k:{d for d in v if d in mods} for k,v in mods.items()}
# tarjan
idx={};low={};st=[];on=set();res=[];c=[0]
def sc(v):
    idx[v]=low[v]=c[0];c[0]+=1;st.append(v);on.add(v)
    for w in mods[v]:
        if w not in idx: sc(w);low[v]=min(low[v],low[w])
        elif w in on: low[v]=min(low[v],idx[w])
    if low[v]==idx[v]:
        comp=[]
        while True:
            w=st.pop();on.discard(w);comp.append(w)
            if w==v:break
        if len(comp)>1: res.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in mods:
    if v not in idx: sc(v)
print(res if res else "no cycles")
for comp in res:
    for a in comp:
        print(a,'->',sorted(d for d in mods[a] if d in comp))
