#!/usr/bin/env python3
"""Fail when a module of the workspace imports a module that imports it back.

    .ci/acyclic.py [CRATE_DIR ...] [--only NAME,NAME]

Builds the module graph of every crate of the workspace (each package under
crates/ and bindings/python, or only the packages named) and prints every
strongly connected component of more than one module: modules that import
one another, directly or around a loop. With `--only`, reports only the
components that hold a module under one of the named top-level modules
(`--only gcm,ghash`). Exits 1 if it printed a component, 0 otherwise.
Python 3.11 standard library only; runs from any directory.

The rule, precisely.

Modules. Each crate root (src/lib.rs, src/main.rs, src/bin/*.rs, and the
`path` of a [lib] or [[bin]] section of Cargo.toml) starts a module tree,
followed through its `mod name;` declarations (`#[path]` honoured, `cfg`
ignored) to `name.rs` or `name/mod.rs`. Every inline `mod name { ... }` is
a module of its own, a child of the module around it (test modules
included); a module a macro defines (`mod $name { ... }`) is placed where
the macro is written. A file under src/ that no tree reaches is noted on
stderr and otherwise ignored.

References. Comments and literals are blanked first, so documentation
links are not references. A module refers to another through
  - a `use` declaration whose path starts with `crate`, `$crate`, `super`,
    `self`, or the name of a child module the referring module declares
    (brace groups expanded: `use crate::{a, b::{c, self}}` is three paths);
  - a path in code that starts the same way (`super::x::f()`,
    `crate::aes::Block`, `child::Item`), or that starts with a name a `use`
    bound to a module (`use crate::ghash; ... ghash::Strategy`); such a
    `use` is then no reference of its own, its paths in code are.
Paths that lead out of the crate (`std::`, other crates, a name a `use`
binds to another crate, as `use aekit_harness as harness;` then
`crate::harness::x`) and paths through a macro's metavariable (`$w::x`)
are not references.

Resolution. A path names the module that defines what it names: its
longest prefix that is a module, then, when the next segment is a name that
module does not define but imports (`use other::X`, `pub use child::X`, a
glob), through that import to where the name is defined. A path that ends
at a module (`use crate::aes;`, `super::*`) names that module.

Edges. Each reference is an edge from the referring module to the module
it names, except
  - a module's references to itself, and
  - a `pub use` (any `pub(...)`) of an item of one of the module's own
    descendants that the module's code does not otherwise name: declaring
    `mod child;` and re-exporting the child's items is how a Rust module is
    built, not a dependency.
Every other reference counts, in both directions: a child naming its
parent's item (`super::Block`) is an edge to the parent, and a parent
naming its child's item in code (`ni::Ni::new`, or a name it imports with a
private `use child::X`) is an edge to the child. So a `mod.rs` that
dispatches to strategy files that use its own types forms a cycle; the way
out is to move the shared items down to a module both sides use.

Each component is printed with the references between its members (file
and line), which are the edges to cut.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
WORKSPACE = Path(__file__).resolve().parent.parent

ModPath = tuple[str, ...]


def rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(WORKSPACE))
    except ValueError:
        return str(path)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# ------------------------------------------------------------------ lexing


def strip(text: str) -> str:
    """Blank comments and the contents of string and char literals, keeping
    every newline and every offset."""
    out = list(text)
    n = len(text)
    raw_string = re.compile(r'b?r(#*)"')

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    i = 0
    while i < n:
        c = text[i]
        after_ident = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c in "br" and not after_ident and (m := raw_string.match(text, i)):
            close = '"' + m.group(1)
            j = text.find(close, m.end())
            j = n if j < 0 else j
            blank(m.end(), j)
            i = j + len(close)
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i = j + 1
        elif c == "'":
            if text.startswith("\\", i + 1):  # an escaped char literal
                j = text.find("'", i + 3)
                j = n if j < 0 else j
                blank(i + 1, j)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":  # a one-char literal
                blank(i + 1, i + 2)
                i += 3
            else:  # a lifetime or a label
                i += 1
        else:
            i += 1
    return "".join(out)


def use_tree(src: str) -> list[tuple[list[str], str | None]]:
    """Expand a use tree into (segments, the name it binds); a glob ends in
    '*' and binds no name."""
    tokens = re.findall(rf"::|\{{|\}}|,|\*|\$?{IDENT}", src)
    pos = 0

    def tree(prefix: list[str]) -> list[tuple[list[str], str | None]]:
        nonlocal pos
        path = list(prefix)
        while pos < len(tokens):
            tok = tokens[pos]
            if tok == "::":
                pos += 1
            elif tok == "{":
                pos += 1
                found = []
                while pos < len(tokens) and tokens[pos] != "}":
                    found += tree(path)
                    if pos < len(tokens) and tokens[pos] == ",":
                        pos += 1
                pos += 1
                return found
            elif tok == "*":
                pos += 1
                return [(path + ["*"], None)]
            elif tok in (",", "}"):
                break
            else:
                path.append(tok)
                pos += 1
                if pos + 1 < len(tokens) and tokens[pos] == "as":
                    alias = tokens[pos + 1]
                    pos += 2
                    if path[-1] == "self":
                        path.pop()
                    return [(path, alias)] if path else []
        if path and path[-1] == "self":
            path.pop()
        return [(path, path[-1])] if path else []

    return tree([])


# ----------------------------------------------------------------- modules


@dataclass
class Use:
    path: list[str]  # as written; made absolute (or [] outside the crate) later
    name: str | None  # the name it binds; None for a glob
    public: bool
    line: int
    external: bool = False


@dataclass
class Ref:
    path: list[str]  # absolute segments
    line: int
    reexport: str | None = None  # the name a `pub use` binds


@dataclass
class Module:
    path: ModPath
    file: Path
    children: dict[str, ModPath] = field(default_factory=dict)
    items: set[str] = field(default_factory=set)
    uses: list[Use] = field(default_factory=list)
    refs: list[Ref] = field(default_factory=list)
    code: str = ""  # this module's own code, its use declarations blanked


class Crate:
    def __init__(self, label: str, root: Path):
        self.label = label
        self.modules: dict[ModPath, Module] = {}
        self.files: set[Path] = set()
        self._load(root.resolve(), (), dir_owner=True)
        for mod in self.modules.values():
            self._absolute_uses(mod)
        for mod in self.modules.values():
            self._code_refs(mod)

    # -- the module tree

    def _load(self, file: Path, mpath: ModPath, dir_owner: bool) -> None:
        """Load `file` as module `mpath`; `dir_owner` when its children live
        beside it (lib.rs, main.rs, mod.rs) rather than in a folder of its
        name."""
        self.files.add(file)
        raw = file.read_text(encoding="utf-8")
        text = strip(raw)
        self.modules[mpath] = Module(mpath, file)
        spans: dict[ModPath, list[tuple[int, int]]] = {(): [(0, len(text))]}
        opened: list[tuple[str, int, int]] = []  # (name, brace depth, body start)
        depth = 0
        for m in re.finditer(rf"\bmod\s+(\$?{IDENT})\s*([{{;])|[{{}}]", text):
            if m.group(2) == ";":
                scope = tuple(o[0] for o in opened)
                self._declare(file, raw, text, m.start(), mpath, scope, m.group(1), dir_owner)
            elif m.group(0).endswith("{"):
                depth += 1
                if m.group(1):
                    opened.append((m.group(1), depth, m.end()))
            else:
                if opened and opened[-1][1] == depth:
                    name, _, start = opened.pop()
                    scope = tuple(o[0] for o in opened) + (name,)
                    spans.setdefault(scope, []).append((start, m.start()))
                depth -= 1
        for scope in sorted(spans, key=len):
            if scope:
                full = mpath + scope
                self.modules.setdefault(full, Module(full, file))
                self.modules[full[:-1]].children[scope[-1]] = full
        for scope, own in spans.items():
            keep = bytearray(len(text))
            for a, b in own:
                keep[a:b] = b"\1" * (b - a)
            for inner, inner_spans in spans.items():
                if len(inner) > len(scope) and inner[: len(scope)] == scope:
                    for a, b in inner_spans:
                        keep[a:b] = bytes(b - a)
            scoped = "".join(c if k or c == "\n" else " " for c, k in zip(text, keep))
            self._read(self.modules[mpath + scope], scoped)

    def _declare(self, file, raw, text, offset, mpath, scope, name, dir_owner) -> None:
        """Follow `mod name;`, written in `file` inside its inline `scope`."""
        attr = re.search(
            r'#\[path\s*=\s*"([^"]*)"\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?$',
            raw[max(0, offset - 300) : offset],
        )
        if attr and not scope:
            target = (file.parent / attr.group(1)).resolve()
        else:
            base = file.parent if dir_owner else file.parent / file.stem
            for s in scope:
                base = base / s
            target = base / f"{name}.rs"
            if not target.exists():
                target = base / name / "mod.rs"
        if not target.exists():
            print(f"note: {rel(file)}:{line_of(text, offset)}: no file for `mod {name};`", file=sys.stderr)
            return
        full = mpath + scope + (name,)
        self.modules.setdefault(mpath + scope, Module(mpath + scope, file)).children[name] = full
        self._load(target, full, dir_owner=target.name == "mod.rs")

    def _read(self, mod: Module, text: str) -> None:
        """Record the items `text` defines, its use declarations, and its code."""
        for m in re.finditer(
            rf"\b(?:fn|struct|enum|const|static|trait|type|union|macro_rules!)\s+({IDENT})", text
        ):
            mod.items.add(m.group(1))
        code = list(text)
        for m in re.finditer(rf"(\bpub\b\s*(?:\([^)]*\))?\s*)?\buse\s+((?:::|\$?{IDENT}|\{{)[^;]*);", text):
            line = line_of(text, m.start())
            for segs, name in use_tree(m.group(2)):
                mod.uses.append(Use(segs, name, bool(m.group(1)), line))
            for k in range(m.start(), m.end()):
                if code[k] != "\n":
                    code[k] = " "
        mod.code = "".join(code)

    # -- references

    def absolute(self, mod: Module, segs: list[str]) -> list[str] | None:
        """The absolute segments of a path written in `mod`, or None when the
        path leaves the crate or goes through a macro's metavariable."""
        if not segs or any(s.startswith("$") and s != "$crate" for s in segs):
            return None
        head = segs[0]
        if head in ("crate", "$crate"):
            return segs[1:]
        if head in ("self", "super"):
            base, rest = list(mod.path), segs
            while rest and rest[0] in ("self", "super"):
                if rest[0] == "super":
                    if not base:
                        return None
                    base.pop()
                rest = rest[1:]
            return base + rest
        if head in mod.children:
            return list(mod.children[head]) + segs[1:]
        return None

    def _absolute_uses(self, mod: Module) -> None:
        for use in mod.uses:
            path = self.absolute(mod, use.path)
            if path is None and use.path and not any(s.startswith("$") for s in use.path):
                use.external = True  # a name for something outside the crate
            use.path = path or []

    def _code_refs(self, mod: Module) -> None:
        aliases: dict[str, list[str]] = {}
        for use in mod.uses:
            if use.path and use.name and use.name not in mod.children and tuple(use.path) in self.modules:
                aliases[use.name] = use.path
            elif use.path:
                mod.refs.append(Ref(use.path, use.line, use.name if use.public else None))
        heads = {"crate", "$crate", "self", "super"} | set(mod.children) | set(aliases)
        for m in re.finditer(rf"(?<![\w:.$])(\$?{IDENT})((?:\s*::\s*\$?{IDENT})+)", mod.code):
            head = m.group(1)
            if head not in heads:
                continue
            segs = [head] + re.findall(rf"\$?{IDENT}", m.group(2))
            if head in aliases:
                path = aliases[head] + segs[1:]
            else:
                path = self.absolute(mod, segs)
            if path is not None:
                mod.refs.append(Ref(path, line_of(mod.code, m.start())))

    def longest_module(self, segs: list[str]) -> tuple[ModPath, list[str]]:
        for k in range(len(segs), -1, -1):
            if tuple(segs[:k]) in self.modules:
                return tuple(segs[:k]), segs[k:]
        return (), segs

    def resolve(self, segs: list[str], seen: frozenset = frozenset()) -> ModPath | None:
        """The module that defines what the absolute path `segs` names, or
        None when a `use` on the way names something outside the crate
        (`use other_crate as alias;` then `crate::alias::x`)."""
        mpath, rest = self.longest_module(segs)
        if not rest or rest[0] == "*":
            return mpath
        name, mod = rest[0], self.modules[mpath]
        if name in mod.items or (mpath, name) in seen:
            return mpath
        seen = seen | {(mpath, name)}
        for use in mod.uses:
            if use.name == name and use.external:
                return None
            if use.path and use.name == name:
                return self.resolve(use.path + rest[1:], seen)
        for use in mod.uses:
            if use.path and use.path[-1] == "*":
                glob = tuple(use.path[:-1])
                if glob in self.modules and (
                    name in self.modules[glob].items
                    or name in self.modules[glob].children
                    or any(u.name == name for u in self.modules[glob].uses)
                ):
                    return self.resolve(list(glob) + rest, seen)
        return mpath

    def graph(self) -> dict[ModPath, dict[ModPath, list[str]]]:
        edges: dict[ModPath, dict[ModPath, list[str]]] = {m: {} for m in self.modules}
        for mod in self.modules.values():
            for ref in mod.refs:
                target = self.resolve(ref.path)
                if target is None or target == mod.path:
                    continue
                if ref.reexport is not None:
                    written, _ = self.longest_module(ref.path)
                    below = len(written) > len(mod.path) and written[: len(mod.path)] == mod.path
                    named = re.search(rf"(?<![\w:.]){re.escape(ref.reexport)}\b", mod.code)
                    if below and not named:
                        continue
                edges[mod.path].setdefault(target, []).append(f"{rel(mod.file)}:{ref.line}")
        return edges


def name(path: ModPath) -> str:
    return "::".join(("crate",) + path)


# ------------------------------------------------------------------ cycles


def components(graph: dict[ModPath, dict[ModPath, list[str]]]) -> list[list[ModPath]]:
    """Tarjan's strongly connected components, without recursion."""
    index: dict[ModPath, int] = {}
    low: dict[ModPath, int] = {}
    stack: list[ModPath] = []
    on_stack: set[ModPath] = set()
    found: list[list[ModPath]] = []
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.append(top)
                        if top == node:
                            break
                    found.append(sorted(comp))
    return found


# -------------------------------------------------------------------- main


def crate_roots(package: Path) -> list[tuple[str, Path]]:
    manifest = tomllib.loads((package / "Cargo.toml").read_text(encoding="utf-8"))
    pkg = manifest.get("package", {}).get("name", package.name)
    roots: dict[Path, str] = {}
    lib = manifest.get("lib", {})
    if "path" in lib:
        roots[(package / lib["path"]).resolve()] = f"{pkg} (lib)"
    elif (package / "src/lib.rs").exists():
        roots[(package / "src/lib.rs").resolve()] = f"{pkg} (lib)"
    for binary in manifest.get("bin", []):
        path = package / binary.get("path", f"src/bin/{binary.get('name', pkg)}.rs")
        if path.exists():
            roots.setdefault(path.resolve(), f"{pkg} (bin {binary.get('name', pkg)})")
    if (package / "src/main.rs").exists():
        roots.setdefault((package / "src/main.rs").resolve(), f"{pkg} (bin {pkg})")
    for path in sorted((package / "src/bin").glob("*.rs")):
        roots.setdefault(path.resolve(), f"{pkg} (bin {path.stem})")
    return [(label, path) for path, label in roots.items()]


def main(argv: list[str]) -> int:
    only: set[str] | None = None
    if "--only" in argv:
        k = argv.index("--only")
        if k + 1 >= len(argv):
            print("usage: .ci/acyclic.py [CRATE_DIR ...] [--only NAME,NAME]", file=sys.stderr)
            return 2
        only = set(argv[k + 1].split(","))
        argv = argv[:k] + argv[k + 2 :]
    packages = []
    for arg in argv:
        path = Path(arg).resolve()
        while not (path / "Cargo.toml").exists() and path != path.parent:
            path = path.parent  # a crate's src/ names its crate
        packages.append(path)
    if not argv:
        packages = sorted(p for p in (WORKSPACE / "crates").iterdir() if (p / "Cargo.toml").exists())
        packages.append(WORKSPACE / "bindings/python")

    cycles = modules = 0
    for package in packages:
        reached: set[Path] = set()
        for label, root in crate_roots(package):
            crate = Crate(label, root)
            reached |= crate.files
            modules += len(crate.modules)
            graph = crate.graph()
            for comp in components(graph):
                if len(comp) < 2:
                    continue
                if only is not None and not any(m and m[0] in only for m in comp):
                    continue
                cycles += 1
                print(f"cycle in {label}: {', '.join(name(m) for m in comp)}")
                members = set(comp)
                for src in comp:
                    for dst, where in sorted(graph[src].items()):
                        if dst in members:
                            more = f" and {len(where) - 2} more" if len(where) > 2 else ""
                            print(f"    {name(src)} -> {name(dst)}  ({', '.join(where[:2])}{more})")
        for file in sorted((package / "src").rglob("*.rs")):
            if file.resolve() not in reached:
                print(f"note: {rel(file)} is in no module tree", file=sys.stderr)
    if cycles:
        print(f"{cycles} module cycle(s) among {modules} modules")
        return 1
    print(f"no module cycles among {modules} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
