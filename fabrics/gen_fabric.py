#!/usr/bin/env python3
"""Generate ibsim net files (stdlib only).

Topologies:
  ft2    2-level fat tree: leaves with hosts, spines; optional parallel links
  kary   k-ary-n-tree (Petrini): n levels of k^(n-1) switches of radix 2k, k^n hosts
  ft3    3-level folded Clos (routing.md 5.2 wiring): pods of leaves+aggrs, (k/2)^2 cores
  torus  torus or mesh (--mesh) of any dimension, hosts per switch
  dfly   balanced dragonfly (routing.md 5.2 rule): p hosts, a switches/group, h global ports
  jelly  Jellyfish random regular switch graph (Singla et al., NSDI'12), seeded
  hcube  hypercube of 2^d switches, hosts per switch

Degrading any of them (seeded, the fabric stays connected):
  --fail-links F       remove a fraction F of the inter-switch links
  --remove-switches N  remove N switches (switches without hosts first; hosts left
                       without any link are removed too)

All host (Hca) records are written first, so the first Hca is the SM host and
GUIDs (which ibsim assigns in file order: CAs from 0x100000, switches from
0x200000) are deterministic.  With --hca-ports 2 every host has two ports:
port 1 goes to its own edge switch, port 2 to the next edge switch (or the
same one if there is only one); on edge switches port-1 links use ports
1..H, port-2 links ports H+1..2H, network ports follow.

Examples:
  gen_fabric.py ft2 --radix 36 --leaves 18 --hosts-per-leaf 18 --spines 9 -o ft2-324.net
  gen_fabric.py kary --k 4 --n 3 -o kary-4-3.net
  gen_fabric.py ft3 --radix 8 --pods 2 -o ft3-small.net
  gen_fabric.py torus --dims 3x3 --hosts 1 -o torus-3x3.net
  gen_fabric.py torus --dims 4x4 --mesh --hosts 2 -o mesh-4x4.net
  gen_fabric.py ft3 --pods 16 --fail-links 0.02 --seed 1 > ft3-5184-f2.net
  gen_fabric.py dfly --p 4 --a 8 --h 4 -o df-1056.net
  gen_fabric.py jelly --switches 200 --net-ports 12 --hosts 6 --seed 1 --fail-links 0.03
  gen_fabric.py hcube --dim 6 --hosts 4 -o hcube-64.net
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys


class Fabric:
    """Nodes and links; renders an ibsim net file with every link on both ends."""

    def __init__(self, title: str):
        self.title = title
        self.nodes: dict[str, tuple[str, int]] = {}  # name -> (kind, nports)
        self.order: list[str] = []
        self.ports: dict[str, dict[int, tuple[str, int]]] = {}

    def add(self, kind: str, name: str, nports: int) -> str:
        if name in self.nodes:
            raise ValueError(f"duplicate node {name}")
        if not 1 <= nports <= 255:
            raise ValueError(f"{name}: {nports} ports (ibsim allows 1..255)")
        self.nodes[name] = (kind, nports)
        self.order.append(name)
        self.ports[name] = {}
        return name

    def link(self, a: str, pa: int, b: str, pb: int) -> None:
        for n, p in ((a, pa), (b, pb)):
            nports = self.nodes[n][1]
            if not 1 <= p <= nports:
                raise ValueError(f"{n}: port {p} out of range 1..{nports}")
            if p in self.ports[n]:
                raise ValueError(f"{n}[{p}] already linked to {self.ports[n][p]}")
        self.ports[a][pa] = (b, pb)
        self.ports[b][pb] = (a, pa)

    def unlink(self, a: str, pa: int) -> None:
        b, pb = self.ports[a].pop(pa)
        del self.ports[b][pb]

    def remove(self, name: str) -> None:
        for p in list(self.ports[name]):
            self.unlink(name, p)
        del self.nodes[name]
        del self.ports[name]
        self.order.remove(name)

    def switch_links(self) -> list[tuple[str, int, str, int]]:
        """Inter-switch links, each once, in file order (deterministic for seeding)."""
        out = []
        for a in self.order:
            if self.nodes[a][0] != "Switch":
                continue
            for pa, (b, pb) in sorted(self.ports[a].items()):
                if self.nodes[b][0] == "Switch" and (a, pa) < (b, pb):
                    out.append((a, pa, b, pb))
        return out

    def connected(self, a: str, b: str) -> bool:
        """Whether b is reachable from a (breadth-first, stops when found)."""
        seen, todo = {a}, [a]
        while todo:
            nxt = []
            for n in todo:
                for rn, _ in self.ports[n].values():
                    if rn == b:
                        return True
                    if rn not in seen:
                        seen.add(rn)
                        nxt.append(rn)
            todo = nxt
        return a == b

    def all_connected(self) -> bool:
        if not self.order:
            return True
        first = self.order[0]
        seen, todo = {first}, [first]
        while todo:
            n = todo.pop()
            for rn, _ in self.ports[n].values():
                if rn not in seen:
                    seen.add(rn)
                    todo.append(rn)
        return len(seen) == len(self.order)

    def render(self) -> str:
        hosts = [n for n in self.order if self.nodes[n][0] == "Hca"]
        switches = [n for n in self.order if self.nodes[n][0] == "Switch"]
        nlinks = sum(len(p) for p in self.ports.values()) // 2
        out = [f"# {self.title}",
               f"# {len(switches)} switches, {len(hosts)} hosts, {nlinks} links; "
               "generated by fabrics/gen_fabric.py", ""]
        for name in hosts + switches:
            kind, nports = self.nodes[name]
            out.append(f'{kind} {nports} "{name}"')
            for p in sorted(self.ports[name]):
                rn, rp = self.ports[name][p]
                out.append(f'[{p}] "{rn}"[{rp}]')
            out.append("")
        return "\n".join(out)


def _attach_hosts(f: Fabric, edges: list[str], hosts_per_edge: int, hca_ports: int,
                  host_name) -> None:
    """Hosts on edge switch i: port 1 -> edge i ports 1..H; port 2 -> next edge ports H+1..2H."""
    for i, sw in enumerate(edges):
        for j in range(hosts_per_edge):
            h = f.add("Hca", host_name(i, j), hca_ports)
            f.link(h, 1, sw, 1 + j)
            if hca_ports == 2:
                other = edges[(i + 1) % len(edges)]
                f.link(h, 2, other, hosts_per_edge + 1 + j)


def ft2(radix: int, leaves: int, hosts_per_leaf: int, spines: int, parallel: int = 1,
        hca_ports: int = 1) -> Fabric:
    edge = hosts_per_leaf * hca_ports
    if edge + spines * parallel > radix:
        raise ValueError(f"leaf needs {edge}+{spines}*{parallel} ports > radix {radix}")
    if leaves * parallel > radix:
        raise ValueError(f"spine needs {leaves}*{parallel} ports > radix {radix}")
    f = Fabric(f"2-level fat tree: radix {radix}, {leaves} leaves x {hosts_per_leaf} hosts, "
               f"{spines} spines, {parallel} parallel link(s), {hca_ports}-port HCAs")
    lv = [f.add("Switch", f"leaf{l}", radix) for l in range(leaves)]
    sp = [f.add("Switch", f"spine{s}", radix) for s in range(spines)]
    _attach_hosts(f, lv, hosts_per_leaf, hca_ports, lambda l, j: f"h{l}_{j}")
    for l in range(leaves):
        for s in range(spines):
            for k in range(parallel):
                f.link(lv[l], edge + 1 + s * parallel + k, sp[s], l * parallel + k + 1)
    return f


def kary(k: int, n: int, hca_ports: int = 1) -> Fabric:
    """k-ary n-tree: switch <w, l>, w in [0,k)^(n-1), level l (0 = leaf).

    <w,l> -- <w',l+1> iff w and w' differ at most in digit l; the up ports of <w,l>
    follow its down ports (up port D + 1 + w'[l], D = number of down ports), the
    down port of <w',l+1> is 1 + w[l].  Host j of leaf <w,0> is on its port 1+j.
    """
    if n < 2:
        raise ValueError("n must be >= 2")
    radix = 2 * k if hca_ports == 1 else 3 * k
    f = Fabric(f"{k}-ary {n}-tree: {n} levels x {k ** (n - 1)} switches (radix {radix}), "
               f"{k ** n} hosts, {hca_ports}-port HCAs")
    words = sorted(itertools.product(range(k), repeat=n - 1), key=lambda w: _widx(w, k))

    def name(w, l):
        return f"sw{l}_{_widx(w, k)}"

    sw = {}
    for l in range(n):
        for w in words:
            sw[(w, l)] = f.add("Switch", name(w, l), radix)
    leaves = [sw[(w, 0)] for w in words]
    _attach_hosts(f, leaves, k, hca_ports, lambda i, j: f"h{i}_{j}")
    down0 = k * hca_ports  # down ports used on leaves
    for l in range(n - 1):
        for w in words:
            for d in range(k):
                w2 = w[:l] + (d,) + w[l + 1:]
                up = (down0 if l == 0 else k) + 1 + d
                down = 1 + w[l]
                f.link(sw[(w, l)], up, sw[(w2, l + 1)], down)
    return f


def _widx(w, k):
    """Switch index of word w, digit 0 least significant (so level-0 uplinks go to
    consecutive level-1 switches, as in ../shared/topologies/kary-*.net)."""
    i = 0
    for d in reversed(w):
        i = i * k + d
    return i


def ft3(radix: int, pods: int, hosts_per_leaf: int | None = None, hca_ports: int = 1) -> Fabric:
    """Folded Clos (routing.md 5.2): h = radix/2; pod p has leaves p<p>l<l> and aggrs p<p>a<a>,
    leaf port h+1+a -> aggr a port l+1, aggr port h+1+j -> core c{a}_{j} port p+1."""
    h = radix // 2
    hpl = h // hca_ports if hosts_per_leaf is None else hosts_per_leaf
    if hpl * hca_ports > h:
        raise ValueError(f"{hpl} hosts x {hca_ports} ports do not fit the {h} leaf down ports")
    if pods > radix:
        raise ValueError(f"at most {radix} pods")
    f = Fabric(f"3-level folded Clos: radix {radix}, {pods} pods x {h} leaves x {hpl} hosts, "
               f"{h * h} cores, {hca_ports}-port HCAs")
    leaves, aggrs = [], {}
    for p in range(pods):
        for l in range(h):
            leaves.append(f.add("Switch", f"p{p}l{l}", radix))
        for a in range(h):
            aggrs[(p, a)] = f.add("Switch", f"p{p}a{a}", radix)
    cores = {(a, j): f.add("Switch", f"c{a}_{j}", radix) for a in range(h) for j in range(h)}
    _attach_hosts(f, leaves, hpl, hca_ports, lambda i, j: f"h{i // h}_{i % h}_{j}")
    for p in range(pods):
        for l in range(h):
            for a in range(h):
                f.link(f"p{p}l{l}", h + 1 + a, aggrs[(p, a)], l + 1)
        for a in range(h):
            for j in range(h):
                f.link(aggrs[(p, a)], h + 1 + j, cores[(a, j)], p + 1)
    return f


def torus(dims: list[int], wrap: bool = True, hosts: int = 1, hca_ports: int = 1) -> Fabric:
    """Ports 1..E hosts (E = hosts*hca_ports), then E+2d+1 = +d, E+2d+2 = -d."""
    edge = hosts * hca_ports
    radix = edge + 2 * len(dims)
    shape = "x".join(map(str, dims))
    f = Fabric(f"{'torus' if wrap else 'mesh'} {shape}, {hosts} hosts/switch, "
               f"{hca_ports}-port HCAs, radix {radix}")
    coords = list(itertools.product(*[range(d) for d in dims]))

    def name(c):
        return "sw" + "_".join(map(str, c))

    sws = [f.add("Switch", name(c), radix) for c in coords]
    _attach_hosts(f, sws, hosts, hca_ports, lambda i, j: f"h{i}_{j}")
    for c in coords:
        for d, size in enumerate(dims):
            if size < 2 or (not wrap and c[d] == size - 1):
                continue
            nb = list(c)
            nb[d] = (c[d] + 1) % size
            f.link(name(c), edge + 2 * d + 1, name(tuple(nb)), edge + 2 * d + 2)
    return f


def dragonfly(p: int, a: int, h: int, hca_ports: int = 1) -> Fabric:
    """Balanced dragonfly (Kim et al., ISCA'08; wiring of routing.md 5.2): g = a*h+1 groups of
    a switches; ports 1..p hosts, p+1..p+a-1 to the other switches of the group (in index
    order), p+a..p+a+h-1 global.  Global channel c (0..a*h-1) of group g goes to group
    (g+c+1) mod g_max, where it is channel g_max-2-c; channel c sits on switch c div h,
    port p+a+(c mod h)."""
    groups = a * h + 1
    edge = p * hca_ports
    radix = edge + a - 1 + h
    f = Fabric(f"dragonfly p={p} a={a} h={h}: {groups} groups x {a} switches, "
               f"{groups * a * p} hosts, radix {radix}, {hca_ports}-port HCAs")

    def name(g, i):
        return f"g{g}s{i}"

    sws = [f.add("Switch", name(g, i), radix) for g in range(groups) for i in range(a)]
    _attach_hosts(f, sws, p, hca_ports, lambda i, j: f"h{i // a}_{i % a}_{j}")
    for g in range(groups):
        for i in range(a):
            for j in range(i + 1, a):
                f.link(name(g, i), edge + 1 + (j - 1), name(g, j), edge + 1 + i)
        for c in range(a * h):
            g2 = (g + c + 1) % groups
            c2 = groups - 2 - c
            if (g, c) < (g2, c2):
                f.link(name(g, c // h), edge + a + c % h, name(g2, c2 // h), edge + a + c2 % h)
    return f


def jellyfish(switches: int, net_ports: int, hosts: int, seed: int, hca_ports: int = 1) -> Fabric:
    """Random regular graph by Singla et al.'s (NSDI'12) incremental construction: join random
    pairs of switches with free ports that are not yet neighbours; when only one switch with
    two or more free ports is left, break a random link (x, y) not touching it and join it to
    x and y.  Ports 1..H hosts, H+1.. network."""
    if net_ports >= switches:
        raise ValueError("net ports must be fewer than switches")
    rng = random.Random(seed)
    edge = hosts * hca_ports
    radix = edge + net_ports
    f = Fabric(f"jellyfish: {switches} switches, {net_ports} network ports, {hosts} hosts each, "
               f"seed {seed}, {hca_ports}-port HCAs")
    sws = [f.add("Switch", f"sw{i}", radix) for i in range(switches)]
    _attach_hosts(f, sws, hosts, hca_ports, lambda i, j: f"h{i}_{j}")
    adj = [set() for _ in range(switches)]
    free = [net_ports] * switches

    def join(x, y):
        adj[x].add(y)
        adj[y].add(x)
        free[x] -= 1
        free[y] -= 1

    while True:
        open_ = [i for i in range(switches) if free[i] > 0]
        pairs = [(x, y) for k, x in enumerate(open_) for y in open_[k + 1:] if y not in adj[x]]
        if pairs:
            # one random pair per round would be O(n^3); shuffle and take a maximal batch
            rng.shuffle(pairs)
            for x, y in pairs:
                if free[x] > 0 and free[y] > 0 and y not in adj[x]:
                    join(x, y)
            continue
        stuck = [i for i in open_ if free[i] >= 2]
        if not stuck:
            break
        v = stuck[0]
        cand = [(x, y) for x in range(switches) for y in adj[x]
                if x < y and v not in (x, y) and x not in adj[v] and y not in adj[v]]
        if not cand:
            break
        x, y = rng.choice(cand)
        adj[x].discard(y)
        adj[y].discard(x)
        free[x] += 1
        free[y] += 1
        join(v, x)
        join(v, y)
    nextport = [edge + 1] * switches
    for x in range(switches):
        for y in sorted(adj[x]):
            if x < y:
                f.link(sws[x], nextport[x], sws[y], nextport[y])
                nextport[x] += 1
                nextport[y] += 1
    return f


def hypercube(dim: int, hosts: int, hca_ports: int = 1) -> Fabric:
    """2^dim switches; port H+1+k of switch i <-> port H+1+k of switch i xor 2^k."""
    edge = hosts * hca_ports
    f = Fabric(f"hypercube: dimension {dim}, {2 ** dim} switches, {hosts} hosts each, "
               f"{hca_ports}-port HCAs")
    sws = [f.add("Switch", f"sw{i}", edge + dim) for i in range(2 ** dim)]
    _attach_hosts(f, sws, hosts, hca_ports, lambda i, j: f"h{i}_{j}")
    for i in range(2 ** dim):
        for k in range(dim):
            if i < i ^ (1 << k):
                f.link(sws[i], edge + 1 + k, sws[i ^ (1 << k)], edge + 1 + k)
    return f


def fail_links(f: Fabric, fraction: float, rng: random.Random) -> int:
    """Removes round(fraction * inter-switch links), picked at random, skipping any link whose
    removal would disconnect its two ends; returns how many were removed."""
    links = f.switch_links()
    want = round(fraction * len(links))
    rng.shuffle(links)
    removed = 0
    for a, pa, b, pb in links:
        if removed >= want:
            break
        f.unlink(a, pa)
        if f.connected(a, b):
            removed += 1
        else:
            f.link(a, pa, b, pb)
    if removed < want:
        raise ValueError(f"only {removed} of {want} links can go without disconnecting the fabric")
    return removed


def remove_switches(f: Fabric, count: int, rng: random.Random) -> list[str]:
    """Removes `count` random switches, those without hosts first, keeping the rest connected;
    hosts left without any link go too."""
    def has_hosts(n):
        return any(f.nodes[rn][0] != "Switch" for rn, _ in f.ports[n].values())

    sws = [n for n in f.order if f.nodes[n][0] == "Switch"]
    rng.shuffle(sws)
    sws.sort(key=has_hosts)  # stable: random order within each class
    gone = []
    for n in sws:
        if len(gone) >= count:
            break
        saved_node, saved_ports = f.nodes[n], dict(f.ports[n])
        idx = f.order.index(n)
        hosts = [rn for rn, _ in saved_ports.values()
                 if f.nodes[rn][0] != "Switch" and len(f.ports[rn]) == 1]
        saved_hosts = [(h, f.nodes[h], dict(f.ports[h]), f.order.index(h)) for h in hosts]
        f.remove(n)
        for h in hosts:
            f.remove(h)
        if f.all_connected():
            gone.append(n)
            continue
        # put it back as it was
        for h, node, _, hidx in sorted(saved_hosts, key=lambda t: t[3]):
            f.nodes[h] = node
            f.ports[h] = {}
            f.order.insert(hidx, h)
        f.nodes[n], f.ports[n] = saved_node, {}
        f.order.insert(idx, n)
        for p, (rn, rp) in saved_ports.items():
            f.link(n, p, rn, rp)
    if len(gone) < count:
        raise ValueError(f"only {len(gone)} of {count} switches can go without disconnecting")
    return gone


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    sub = ap.add_subparsers(dest="kind", required=True)
    a = sub.add_parser("ft2", help="2-level fat tree")
    a.add_argument("--radix", type=int, default=36)
    a.add_argument("--leaves", type=int, required=True)
    a.add_argument("--hosts-per-leaf", type=int, required=True)
    a.add_argument("--spines", type=int, required=True)
    a.add_argument("--parallel", type=int, default=1, help="links per leaf-spine pair")
    a = sub.add_parser("kary", help="k-ary n-tree")
    a.add_argument("--k", type=int, required=True)
    a.add_argument("--n", type=int, required=True)
    a = sub.add_parser("ft3", help="3-level folded Clos")
    a.add_argument("--radix", type=int, default=36)
    a.add_argument("--pods", type=int, required=True)
    a.add_argument("--hosts-per-leaf", type=int, default=None)
    a = sub.add_parser("torus", help="torus or mesh")
    a.add_argument("--dims", required=True, help="e.g. 4x4x4")
    a.add_argument("--mesh", action="store_true", help="no wrap-around links")
    a.add_argument("--hosts", type=int, default=1, help="hosts per switch")
    a = sub.add_parser("dfly", help="balanced dragonfly")
    a.add_argument("--p", type=int, required=True, help="hosts per switch")
    a.add_argument("--a", type=int, required=True, help="switches per group")
    a.add_argument("--h", type=int, required=True, help="global ports per switch")
    a = sub.add_parser("jelly", help="Jellyfish random regular graph")
    a.add_argument("--switches", type=int, required=True)
    a.add_argument("--net-ports", type=int, required=True, help="inter-switch ports per switch")
    a.add_argument("--hosts", type=int, default=1, help="hosts per switch")
    a = sub.add_parser("hcube", help="hypercube")
    a.add_argument("--dim", type=int, required=True)
    a.add_argument("--hosts", type=int, default=1, help="hosts per switch")
    for p in sub.choices.values():
        # -o also after the topology name; SUPPRESS keeps the top-level default
        p.add_argument("-o", "--output", default=argparse.SUPPRESS, help="output file")
        p.add_argument("--hca-ports", type=int, choices=(1, 2), default=1)
        p.add_argument("--seed", type=int, default=1, help="seed for jelly and degrading")
        p.add_argument("--fail-links", type=float, default=0.0, metavar="F",
                       help="remove this fraction of inter-switch links (connectivity kept)")
        p.add_argument("--remove-switches", type=int, default=0, metavar="N",
                       help="remove N switches (connectivity kept)")
    args = ap.parse_args(argv)
    try:
        if args.kind == "ft2":
            fab = ft2(args.radix, args.leaves, args.hosts_per_leaf, args.spines, args.parallel,
                      args.hca_ports)
        elif args.kind == "kary":
            fab = kary(args.k, args.n, args.hca_ports)
        elif args.kind == "ft3":
            fab = ft3(args.radix, args.pods, args.hosts_per_leaf, args.hca_ports)
        elif args.kind == "torus":
            fab = torus([int(x) for x in args.dims.lower().split("x")], not args.mesh, args.hosts,
                        args.hca_ports)
        elif args.kind == "dfly":
            fab = dragonfly(args.p, args.a, args.h, args.hca_ports)
        elif args.kind == "jelly":
            fab = jellyfish(args.switches, args.net_ports, args.hosts, args.seed, args.hca_ports)
        else:
            fab = hypercube(args.dim, args.hosts, args.hca_ports)
        # one generator for both steps: the same seed gives the same degraded fabric
        rng = random.Random(args.seed)
        if args.remove_switches:
            gone = remove_switches(fab, args.remove_switches, rng)
            fab.title += f"; switches removed (seed {args.seed}): {' '.join(gone)}"
        if args.fail_links:
            n = fail_links(fab, args.fail_links, rng)
            fab.title += f"; {n} inter-switch links removed ({args.fail_links:g}, seed {args.seed})"
    except ValueError as e:
        print(f"gen_fabric: {e}", file=sys.stderr)
        return 2
    text = fab.render()
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
