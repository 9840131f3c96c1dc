#!/usr/bin/env python3
"""Reports import cycles among the modules of a Rust crate.

    .ci/acyclic.py crates/aekit/src [--only gcm,ghash]

Every module is a node: each file (`foo.rs`, `foo/mod.rs`) and each inline
`mod name { ... }` inside one (test modules included, as modules of their
own). A module has an edge to every module whose items it names: in `use`
declarations and in paths in its code that start with `crate::`, `super::`,
`self::`, a child module's name or a name a `use` bound to a module.
Comments and string literals are not read. A path to an item that its
module only re-exports (`pub use child::Item`) leads to the module that
defines it, so a re-export is no way around a cycle.

A module's edges to its own descendants are left out: a parent is made of
its children (`mod.rs` holding a strategy enum over them, re-exporting
their items), and a child naming its parent's items (`super::Trait`) is
the one direction that counts between the two.

Prints each strongly connected component of more than one module, with
one cycle through it, and exits 1 if there is any (with `--only`, any
that involves a module under one of the given top-level modules); exits 0
and prints nothing otherwise.
"""

import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(src):
    """The source with comments, strings and char literals blanked out
    (newlines kept, so that nothing else moves)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:i + 40]) and not re.match(r"[A-Za-z0-9_]", src[i - 1] if i else " "):
            m = re.match(r'r(#*)"', src[i:])
            end = '"' + m.group(1)
            j = src.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", src[i:])
            if m:  # a char literal; otherwise a lifetime
                out.append("' '")
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Module:
    def __init__(self, path, file):
        self.path = path  # tuple of names from the crate root
        self.file = file
        self.children = set()
        self.code = []  # (text) pieces that belong to this module itself
        self.uses = []  # use trees (text)
        self.bindings = {}  # name -> list of absolute-ish paths (segments) it was bound to


def split_modules(path, code, file, modules):
    """Registers module `path` with `code`, and its inline modules."""
    mod = modules.setdefault(path, Module(path, file))
    own = []
    i, n = 0, len(code)
    pattern = re.compile(r"\bmod\s+(" + IDENT + r")\s*([{;])")
    while i < n:
        m = pattern.search(code, i)
        if not m:
            own.append(code[i:])
            break
        own.append(code[i:m.start()])
        name, kind = m.group(1), m.group(2)
        mod.children.add(name)
        if kind == ";":
            i = m.end()
            continue
        depth, j = 1, m.end()
        while j < n and depth:
            if code[j] == "{":
                depth += 1
            elif code[j] == "}":
                depth -= 1
            j += 1
        split_modules(path + (name,), code[m.end():j - 1], file, modules)
        i = j
    mod.code.append("".join(own))


def load(root):
    modules = {}
    root = Path(root)

    def file_module(path, file):
        code = strip(file.read_text(encoding="utf-8"))
        split_modules(path, code, file, modules)
        for name in sorted(modules[path].children):
            if (path + (name,)) in modules:
                continue  # inline
            base = file.parent if file.name in ("lib.rs", "main.rs", "mod.rs") else file.with_suffix("")
            for cand in (base / f"{name}.rs", base / name / "mod.rs"):
                if cand.exists():
                    file_module(path + (name,), cand)
                    break

    top = root / "lib.rs" if (root / "lib.rs").exists() else root / "main.rs"
    file_module((), top)
    return modules


def use_trees(code):
    """The trees of the `use` declarations in `code`."""
    for m in re.finditer(r"\buse\s+([^;]*);", code):
        yield m.group(1)


def expand(tree, prefix=()):
    """Flattens a use tree into (segments, bound name or None for a glob)."""
    tree = tree.strip()
    tree = re.sub(r"^::", "", tree)
    brace = tree.find("{")
    if brace < 0:
        m = re.match(r"(.*?)(?:\s+as\s+(" + IDENT + r"))?$", tree, re.S)
        segs = [s.strip() for s in m.group(1).split("::") if s.strip()]
        alias = m.group(2)
        if segs and segs[-1] == "*":
            yield tuple(prefix) + tuple(segs[:-1]), None
            return
        if segs and segs[-1] == "self":
            segs = segs[:-1]
        full = tuple(prefix) + tuple(segs)
        if full:
            yield full, alias or full[-1]
        return
    head = [s.strip() for s in tree[:brace].split("::") if s.strip()]
    body = tree[brace + 1:tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    for part in parts:
        if part.strip():
            yield from expand(part, tuple(prefix) + tuple(head))


def resolve_start(modules, here, segs):
    """The module a path's first segments name, and the rest: (module path,
    remaining segments) or None when the path leaves the crate."""
    cur = here
    segs = list(segs)
    if not segs:
        return None
    if segs[0] == "crate":
        cur, segs = (), segs[1:]
    elif segs[0] in ("super", "self"):
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                cur = cur[:-1]
            segs = segs[1:]
    elif segs[0] in modules[here].children:
        pass
    elif segs[0] in modules[here].bindings:
        targets = modules[here].bindings[segs[0]]
        results = []
        for t in targets:
            if t in modules:
                results.append((t, segs[1:]))
        return results[0] if results else None
    else:
        return None
    while segs and (cur + (segs[0],)) in modules:
        cur, segs = cur + (segs[0],), segs[1:]
    return cur, segs


def defining(modules, module, item, depth=0):
    """The modules that define `item`, named in `module` (following its
    re-exports)."""
    targets = modules[module].reexports.get(item) if depth < 8 else None
    if not targets:
        return {module}
    found = set()
    for segs in targets:
        r = resolve_start(modules, module, segs)
        if r is None:
            found.add(module)
            continue
        target, rest = r
        if rest:
            found |= defining(modules, target, rest[0], depth + 1)
        else:
            found.add(target)
    return found


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        k = args.index("--only")
        only = set(args[k + 1].split(","))
        del args[k:k + 2]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    modules = load(args[0])

    # Pass 1: what each module's `use` declarations bind.
    for mod in modules.values():
        mod.reexports = {}
        code = "".join(mod.code)
        for tree in use_trees(code):
            for segs, name in expand(tree):
                if name is None:
                    continue
                mod.reexports.setdefault(name, []).append(segs)
    for mod in modules.values():
        for name, paths in mod.reexports.items():
            for segs in paths:
                r = resolve_start(modules, mod.path, segs)
                if r is not None and not r[1]:
                    mod.bindings.setdefault(name, []).append(r[0])

    # Pass 2: edges from every path.
    edges = {p: set() for p in modules}
    path_re = re.compile(r"(?<![A-Za-z0-9_:])(" + IDENT + r"(?:\s*::\s*(?:" + IDENT + r"|\{|\*))+)")
    for mod in modules.values():
        code = "".join(mod.code)
        paths = []
        for tree in use_trees(code):
            paths += [segs for segs, _ in expand(tree)]
        for m in path_re.finditer(code):
            segs = [s.strip() for s in m.group(1).split("::")]
            paths.append(tuple(s for s in segs if s not in ("{", "*")))
        for segs in paths:
            r = resolve_start(modules, mod.path, segs)
            if r is None:
                continue
            target, rest = r
            targets = defining(modules, target, rest[0]) if rest else {target}
            for t in targets:
                if t != mod.path and t[:len(mod.path)] != mod.path:
                    edges[mod.path].add(t)

    # Tarjan's strongly connected components.
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    for v in sorted(modules):
        if v not in index:
            visit(v)

    name = lambda p: "::".join(("crate",) + p)
    bad = 0
    for comp in sorted((c for c in comps if len(c) > 1), key=lambda c: sorted(c)):
        inside = set(comp)
        if only and not any(p and p[0] in only for p in comp):
            continue
        bad += 1
        # One cycle: a shortest path back to the first module.
        start = min(comp)
        prev, frontier, found = {start: None}, [start], None
        while frontier and not found:
            nxt = []
            for v in frontier:
                for w in sorted(edges[v] & inside):
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found:
                    break
            frontier = nxt
        cycle, v = [start], found
        while v is not None and v != start:
            cycle.insert(1, v)
            v = prev[v]
        print(f"cycle among {len(comp)} modules: " + ", ".join(name(p) for p in sorted(comp)))
        print("  for example: " + " -> ".join(name(p) for p in cycle + [start]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
