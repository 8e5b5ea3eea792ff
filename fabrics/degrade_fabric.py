#!/usr/bin/env python3
"""Degrade an existing ibsim net file: remove a seeded random fraction of its
inter-switch links, keeping the fabric connected (stdlib only).

gen_fabric.py --fail-links degrades the fabrics it generates; this does the same to
any net file, e.g. the shared benchmark fabrics:

  degrade_fabric.py ../../shared/topologies/ft3-5184.net --fail-links 0.02 --seed 1 \\
      -o ft3-5184-f2.net

Node order (hence ibsim's GUIDs) and every remaining link stay as in the input; the
same input, fraction and seed give the same file.  The first comment line records
what was removed.  Only node records and '[port] "peer"[port]' link lines are read;
other annotations on a node or link line are dropped.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_fabric import Fabric, fail_links  # noqa: E402

_NODE = re.compile(r'^\s*(Switch|Hca|Rt)\s+(\d+)\s+"([^"]+)"')
_LINK = re.compile(r'^\s*\[(\d+)\][^"]*"([^"]+)"\s*\[(\d+)\]')


def read_net(text: str, where: str) -> Fabric:
    """The nodes and links of a net file; a link listed on both ends is taken once."""
    f = Fabric(where)
    links = []
    current = None
    for no, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        if m := _NODE.match(body):
            current = f.add(m.group(1), m.group(3), int(m.group(2)))
        elif m := _LINK.match(body):
            if current is None:
                raise ValueError(f"{where}:{no}: link line before any node")
            links.append((current, int(m.group(1)), m.group(2), int(m.group(3)), no))
        else:
            raise ValueError(f"{where}:{no}: not a node or link line: {line.strip()!r}")
    for a, pa, b, pb, no in links:
        if b not in f.nodes:
            raise ValueError(f"{where}:{no}: {a}[{pa}] names unknown node {b!r}")
        if f.ports[a].get(pa) == (b, pb):
            continue  # the other end already listed it
        try:
            f.link(a, pa, b, pb)
        except ValueError as e:
            raise ValueError(f"{where}:{no}: {e}") from None
    return f


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("net", type=Path, help="ibsim net file to degrade")
    ap.add_argument("--fail-links", type=float, required=True, metavar="F",
                    help="fraction of inter-switch links to remove (connectivity kept)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    args = ap.parse_args(argv)
    if not 0 <= args.fail_links < 1:
        print(f"degrade_fabric: --fail-links {args.fail_links}: want 0 <= F < 1", file=sys.stderr)
        return 2
    try:
        fab = read_net(args.net.read_text(), str(args.net))
        isl = len(fab.switch_links())
        n = fail_links(fab, args.fail_links, random.Random(args.seed))
    except (OSError, ValueError) as e:
        print(f"degrade_fabric: {e}", file=sys.stderr)
        return 2
    fab.title = (f"{args.net.name} with {n} of {isl} inter-switch links removed "
                 f"({args.fail_links:g}, seed {args.seed}) by fabrics/degrade_fabric.py")
    text = fab.render()
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
