#!/usr/bin/env python3
"""Where the bytes go, from a dhat heap profile (engine's cache_memory example with DHAT_OUT=FILE).

  end2end/bench/dhat-summary.py FILE [PODS] [TOP]

Sums what was still allocated when the profile was written (the caches, held whole) by what was allocated (an Arc
of a type, a hash table, a string) and the first frame of its call stack in the project's own code or the
reflector's store. With PODS, each line also says its bytes per pod.
"""
import json
import re
import sys
from collections import defaultdict

# The project's own files, and the reflector's store (kube-runtime's, the only dependency that keeps objects).
OURS = re.compile(r"\((engine|domain)/(src|examples)/|\(src/reflector/store\.rs")
# The allocator the example installs: never the answer.
SKIP = re.compile(r"__rust|dhat-0")
KINDS = [
    (re.compile(r"ArcInner<(?:[\w:]+::)?(\w+)"), lambda m: f"Arc<{m.group(1)}>"),
    (re.compile(r"reserve_rehash|fallible_with_capacity|hashbrown"), lambda m: "hash table"),
    (re.compile(r"btree"), lambda m: "B-tree node"),
    (re.compile(r"Box<str>|Box<\[u8\]>"), lambda m: "Box<str>"),
    (re.compile(r"String as core::clone::Clone|to_vec<u8|Vec<u8>|String"), lambda m: "String"),
    (re.compile(r"with_capacity<(?:[\w:]+::)?(\w+)>"), lambda m: f"Vec<{m.group(1)}>"),
]


def site(frames):
    texts = [frame.split(": ", 1)[-1] for frame in frames]
    kind = "other"
    for text in texts:
        found = next(((p, label) for p, label in KINDS if p.search(text)), None)
        if found:
            kind = found[1](found[0].search(text))
            break
    ours = next((t for t in texts if OURS.search(t) and not SKIP.search(t)), texts[-1] if texts else "[unknown]")
    # Drop the generic arguments and the column; keep the function and the file:line.
    ours = re.sub(r":\d+\)$", ")", re.sub(r"<[^()]*>(?=::|\s\()", "", ours))
    return f"{kind:<22} {ours}"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    profile = json.load(open(sys.argv[1]))
    pods = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    frames = profile["ftbl"]
    held = defaultdict(lambda: [0, 0])
    for pp in profile["pps"]:
        if not pp.get("eb"):
            continue
        where = site([frames[i] for i in pp["fs"]])
        held[where][0] += pp["eb"]
        held[where][1] += pp["ebk"]
    total = sum(b for b, _ in held.values())
    print(f"held at the end: {total / 2**20:.1f} MiB in {sum(n for _, n in held.values()):,} blocks"
          + (f", {total / pods:,.0f} B per pod" if pods else ""))
    print(f"{'MiB':>8} {'share':>6} {'blocks':>10}" + (f" {'B/pod':>7}" if pods else "") + "  what                   where (first frame of ours)")
    for where, (size, blocks) in sorted(held.items(), key=lambda kv: -kv[1][0])[:top]:
        per_pod = f" {size / pods:7.0f}" if pods else ""
        print(f"{size / 2**20:8.1f} {100 * size / total:5.1f}% {blocks:10,}{per_pod}  {where}")


if __name__ == "__main__":
    main()
