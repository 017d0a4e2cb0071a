#!/usr/bin/env python3
"""Finds import circles between the files of one crate, and prints each with the lines that close it.

usage: import-cycles.py CRATE_SRC_DIR...   (e.g. app/src domain/src); exits 1 if any crate has a circle.
       import-cycles.py --self-test         checks the reading of modules on a small made-up crate.

A file depends on another when its code names an item of the other: through a `use` (`crate::`, `super::`,
`self::`, a child module's name, or a module it imported), or through a path written in the code itself
(`crate::pages::board::Filters`). The module tree is read from the `mod` declarations, so `a.rs`, `a/mod.rs`,
nested files and inline `mod x { ... }` blocks (which belong to their file) all resolve. A `pub use` is a door,
not a dependency: a path that reaches an item through a re-export is followed to the file that defines it, and the
re-exporting file depends on the item only if its own code names it. Declaring a child module (`mod x;`) is not an
import. Test code (`#[cfg(test)]` items) is left out: a test may reach anywhere.
"""

import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(text, literal=" "):
    """Blanks comments, strings and char literals (keeping line breaks and offsets), so braces and paths in them
    do not count. With `literal`, a literal's characters become that character rather than blanks, so that a line
    inside a string still shows as not blank."""
    out = []
    lit = lambda s: re.sub(r"[^\n]", literal, s)  # noqa: E731
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
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
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif re.match(r'(b|c)?r#*"', text[i:i + 260]) and (i == 0 or not re.match(r"\w", text[i - 1])):
            m = re.match(r'(b|c)?r(#*)"', text[i:])
            end = '"' + m.group(2)
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(lit(text[i:j]))
            i = j
        elif c == '"' or (c in "bc" and text.startswith('"', i + 1) and (i == 0 or not re.match(r"\w", text[i - 1]))):
            j = i + (1 if c == '"' else 2)
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(lit(text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'\n])'", text[i:])
            if m:
                out.append(literal * m.end())
                i += m.end()
            else:  # a lifetime or a label
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def item_end(code, i):
    """The end of the item starting at `i`: after its `;` or its balanced `{ ... }`, whichever comes first."""
    depth = 0
    n = len(code)
    while i < n:
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{":
            j, d = i, 0
            while j < n:
                if code[j] == "{":
                    d += 1
                elif code[j] == "}":
                    d -= 1
                    if d == 0:
                        return j + 1
                j += 1
            return n
        elif c == ";" and depth <= 0:
            return i + 1
        i += 1
    return n


def drop_tests(code):
    """Blanks every item under `#[cfg(test)]` (a test module, a test-only `use` or function), and the whole of a
    file that says `#![cfg(test)]` first (a module of tests in a file of its own)."""
    if re.match(r"\s*#!\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]", code):
        return re.sub(r"[^\n]", " ", code)
    while True:
        m = re.search(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]", code)
        if not m:
            return code
        end = item_end(code, m.end())
        code = code[: m.start()] + re.sub(r"[^\n]", " ", code[m.start():end]) + code[end:]


def split_use_tree(tree):
    """`a::{b, c::{d as e, self}}` -> [(["a","b"], "b"), (["a","c","d"], "e"), (["a","c"], "c")]."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, s):
        depth, start, parts = 0, 0, []
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0:
                head = [x for x in part[:brace].split("::") if x]
                walk(prefix + head, part[brace + 1: part.rfind("}")])
                continue
            alias = None
            if "as" in part and re.search(r"(?<=\w)as(?=\w)", part):
                m = re.match(r"(.*?)as(" + IDENT + ")$", part)
                # `as` joined without spaces after whitespace removal: split on the last `as` before an ident.
                if m and not m.group(1).endswith("::"):
                    part, alias = m.group(1), m.group(2)
            segs = [x for x in part.split("::") if x]
            if segs and segs[-1] == "self":
                segs = segs[:-1]
            path = prefix + segs
            if path:
                out.append((path, alias or path[-1]))

    walk([], tree)
    return out


class Module:
    def __init__(self, path, file):
        self.path = tuple(path)
        self.file = file
        self.children = {}
        self.reexports = {}  # name -> (path, module) of a `pub use`
        self.aliases = {}  # name -> path of a private `use`


class Crate:
    def __init__(self, src):
        self.src = Path(src)
        root = self.src / "lib.rs"
        if not root.exists():
            root = self.src / "main.rs"
        self.modules = {}
        self.files = {}  # file -> cleaned code
        self.uses = []  # (module, start offset, end offset, [(path, alias)], is_pub)
        self.spans = {}  # file -> [(start, end, module)] of inline modules, innermost last
        self.macros = {}  # exported macro -> the module that defines it
        self.load(root, (), is_root=True)

    def load(self, file, path, is_root=False):
        code = drop_tests(strip(file.read_text()))
        self.files[file] = code
        mod = Module(path, file)
        self.modules[mod.path] = mod
        self.spans[file] = [(0, len(code), mod)]
        # `#[macro_export]` puts a macro at the crate's root; `crate::name!` depends on the file that defines it.
        for m in re.finditer(r"#\s*\[\s*macro_export\s*\]\s*macro_rules!\s*(" + IDENT + ")", code):
            self.macros[m.group(1)] = mod
        dir_ = file.parent if is_root or file.name == "mod.rs" else file.parent / file.stem
        self.scan(file, code, 0, len(code), mod, dir_)

    def scan(self, file, code, start, end, mod, dir_):
        i = start
        pattern = re.compile(r"\b(?:pub(?:\s*\([^)]*\))?\s+)?(mod\s+(" + IDENT + r")\s*([;{])|use\s)")
        while True:
            m = pattern.search(code, i, end)
            if not m:
                return
            if m.group(2):
                name = m.group(2)
                if m.group(3) == ";":
                    child = dir_ / (name + ".rs")
                    if not child.exists():
                        child = dir_ / name / "mod.rs"
                    if child.exists():
                        self.load(child, mod.path + (name,))
                        mod.children[name] = self.modules[mod.path + (name,)]
                    i = m.end()
                else:
                    close = item_end(code, m.start(3))
                    inner = Module(mod.path + (name,), file)
                    self.modules[inner.path] = inner
                    mod.children[name] = inner
                    self.spans[file].append((m.end(), close, inner))
                    self.scan(file, code, m.end(), close - 1, inner, dir_ / name)
                    i = close
            else:
                stmt_end = item_end(code, m.end())
                tree = code[m.end(): stmt_end].rstrip().rstrip(";")
                is_pub = m.group(0).startswith("pub")
                entries = split_use_tree(tree)
                self.uses.append((mod, m.start(), stmt_end, entries, is_pub))
                for path, alias in entries:
                    if alias in ("*", "_"):
                        continue
                    (mod.reexports if is_pub else mod.aliases)[alias] = path
                i = stmt_end

    def module_at(self, file, offset):
        best = None
        for s, e, mod in self.spans[file]:
            if s <= offset < e:
                best = mod
        return best

    def resolve(self, mod, segs, depth=0):
        """The module (and whether the path ended on it) that a path written in `mod` names, or None if it names
        another crate or a local item."""
        if depth > 20 or not segs:
            return None
        head, rest = segs[0], list(segs[1:])
        if head == "crate":
            cur = self.modules[()]
        elif head == "self":
            cur = mod
        elif head == "super":
            cur = self.modules.get(mod.path[:-1])
            while rest and rest[0] == "super" and cur is not None:
                cur = self.modules.get(cur.path[:-1])
                rest = rest[1:]
            if cur is None:
                return None
        elif head in mod.children:
            cur = mod.children[head]
        elif head in mod.aliases or head in mod.reexports:
            target = mod.aliases.get(head) or mod.reexports.get(head)
            return self.resolve(mod, list(target) + rest, depth + 1)
        else:
            return None
        while rest and rest[0] in cur.children:
            cur = cur.children[rest[0]]
            rest = rest[1:]
        if not cur.path and rest and rest[0] in self.macros:
            return (self.macros[rest[0]], False)
        if rest and rest[0] in cur.reexports:
            found = self.resolve(cur, list(cur.reexports[rest[0]]) + rest[1:], depth + 1)
            if found:
                return found
        return (cur, not rest)

    def edges(self):
        """{(from file, to file): first line} over every use and written path."""
        found = {}

        def add(frm, to, file, offset):
            if frm.file != to.file:
                line = self.files[file].count("\n", 0, offset) + 1
                found.setdefault((frm.file, to.file), line)

        use_spans = {}
        for mod, s, e, entries, is_pub in self.uses:
            use_spans.setdefault(mod.file, []).append((s, e))
            if is_pub:
                continue  # a door: followed when another file names the item (see `resolve`)
            for path, alias in entries:
                hit = self.resolve(mod, path)
                if hit and (not hit[1] or alias == "*"):
                    add(mod, hit[0], mod.file, s)
                # A module imported by name (`use crate::pages;`) is a dependency only where its items are named.
        path_re = re.compile(r"(?<![\w:$])(" + IDENT + r"(?:\s*::\s*" + IDENT + r")+)")
        for file, code in self.files.items():
            spans = use_spans.get(file, [])
            for m in path_re.finditer(code):
                if any(s <= m.start() < e for s, e in spans):
                    continue
                mod = self.module_at(file, m.start())
                segs = [x.strip() for x in m.group(1).split("::")]
                hit = self.resolve(mod, segs)
                if hit:
                    add(mod, hit[0], file, m.start())
            # A name this file re-exports, used in its own code, is its dependency too.
            for mod in {sp[2] for sp in self.spans[file]}:
                for name, path in mod.reexports.items():
                    body = code
                    for s, e in spans:
                        body = body[:s] + " " * (e - s) + body[e:]
                    if re.search(r"(?<![\w:])" + re.escape(name) + r"\b", body):
                        hit = self.resolve(mod, list(path))
                        if hit:
                            off = next((s for md, s, e, en, p in self.uses if md is mod and p), 0)
                            add(mod, hit[0], file, off)
        return found


def cycles(graph):
    """The strongly connected components with more than one file (Tarjan), each as one circle through them."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in comps:
        members = set(comp)
        start = min(comp)
        # The shortest circle through `start` inside the component (breadth-first back to it).
        prev, queue, seen = {}, [start], {start}
        circle = None
        while queue and circle is None:
            nxt = []
            for v in queue:
                for w in sorted(graph.get(v, ())):
                    if w == start:
                        path = [v]
                        while path[-1] != start:
                            path.append(prev[path[-1]])
                        circle = list(reversed(path))
                        break
                    if w in members and w not in seen:
                        seen.add(w)
                        prev[w] = v
                        nxt.append(w)
                if circle:
                    break
            queue = nxt
        out.append((sorted(comp), circle))
    return out


SELF_TEST = {
    # Four circles: a parent and its child, across two levels of `mod.rs`, through an inline module, and through a
    # re-export at the root; and a file that only re-exports, or imports in its tests, or is all tests, which is in
    # none.
    "lib.rs": "pub mod a; pub mod c; mod w; mod x; mod y; mod z; mod door; mod k; mod v; pub use x::X;",
    "a/mod.rs": "pub mod b; pub fn f() { b::g() }",
    "a/b.rs": "pub fn g() { super::f() }",
    "c/mod.rs": 'pub mod d; pub fn f() { let s = "{"; d::e::g() }',
    "c/d/mod.rs": "pub mod e;",
    "c/d/e.rs": "pub fn g() { let c = '}'; super::super::f() }",
    "w.rs": "pub struct Q; mod inner { use super::super::z::Z; }",
    "z.rs": "use crate::w::Q; pub struct Z;",
    "x.rs": "pub struct X; fn h(_: crate::y::Y) {}",
    "y.rs": "use crate::X; pub struct Y;",
    "door.rs": "// crate::a::f\npub use crate::y::Y;\n#[cfg(test)]\nmod tests { use crate::z::Z; }",
    "k.rs": "#![cfg(test)]\nuse crate::v::V; pub struct K;",
    "v.rs": "pub struct V; fn f(_: crate::k::K) {}",
}


def self_test():
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for name, text in SELF_TEST.items():
            path = Path(tmp) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        graph = {}
        for a, b in Crate(tmp).edges():
            graph.setdefault(a, set()).add(b)
        found = sorted(sorted(str(Path(f).relative_to(tmp)) for f in comp) for comp, _ in cycles(graph))
    want = [["a/b.rs", "a/mod.rs"], ["c/d/e.rs", "c/mod.rs"], ["w.rs", "z.rs"], ["x.rs", "y.rs"]]
    print("self-test: ok" if found == want else f"self-test: found {found}, want {want}")
    return 0 if found == want else 1


def main(args):
    if args == ["--self-test"]:
        return self_test()
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    failed = False
    for src in args:
        crate = Crate(src)
        edges = crate.edges()
        graph = {}
        for a, b in edges:
            graph.setdefault(a, set()).add(b)
        for comp, circle in cycles(graph):
            failed = True
            rel = lambda f: str(f)  # noqa: E731
            print(f"import circle in {src} among {len(comp)} files: " + ", ".join(rel(f) for f in comp))
            for a, b in zip(circle, circle[1:] + circle[:1]):
                print(f"  {rel(a)}:{edges[(a, b)]} uses {rel(b)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
