"""Up/down routing (-R updn) on a torus, judged from the switches' tables alone.

ibnetdiscover gives the cabling, ibroute every switch's LFT; from those this file
builds its own channel dependency graph (nodes: directed switch-to-switch channels,
edges: a CA-to-LID path uses one right after the other) and looks for a cycle
(Dally & Seitz 1987: no cycle on the one VL in use = no credit loop). Nothing here
knows how either SM routes.

OpenSM's automatic root detection finds no root on a torus and silently falls back
to minhop, so OpenSM is given a root_guid_file (-a), as its documentation asks for
non-tree fabrics; ibsm is run both ways. minhop on the same torus must show a cycle,
which proves the judge can fail.
"""

from __future__ import annotations

import os
from collections import defaultdict

import pytest

import checks
from conftest import FABRICS
import gen_fabric
from ibsimlib import SMProcess

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "90"))
ROOT = "sw0_0"

# A 4x4 torus: big enough that min-hop paths (up to 4 hops, two dimensions) close
# dependency cycles, small enough to read every LFT with ibroute quickly.
FABRICS.setdefault("torus-4x4", (lambda: gen_fabric.torus([4, 4], wrap=True, hosts=1), None, None))

pytestmark = pytest.mark.parametrize("fabric", ["torus-4x4"], indirect=True, scope="module")

Channel = tuple[int, int]  # (switch GUID, output port)


def channel_dependencies(topo, lfts) -> dict[Channel, set[Channel]]:
    """c1 -> {c2}: some path from a CA port to some LID leaves on c2 right after c1."""
    deps: dict[Channel, set[Channel]] = defaultdict(set)
    owners = topo.lid_owner()
    for src, sport, slid in topo.end_ports():
        if src.is_switch:
            continue
        for dlid in owners:
            if dlid == slid:
                continue
            first = src.ports[sport]
            node = topo.nodes.get(first.peer_guid)
            prev = None
            for _ in range(checks.MAX_HOPS):
                if node is None or not node.is_switch:
                    break
                out = lfts[node.guid].get(dlid)
                nxt = node.ports.get(out) if out else None
                if nxt is None:
                    break
                peer = topo.nodes.get(nxt.peer_guid)
                ch = (node.guid, out) if peer is not None and peer.is_switch else None
                if prev is not None and ch is not None:
                    deps[prev].add(ch)
                prev, node = ch, peer
    return deps


def find_cycle(deps: dict[Channel, set[Channel]]) -> list[Channel]:
    """One cycle of the graph (iterative three-colour DFS), or []."""
    colour: dict[Channel, int] = {}
    for root in list(deps):
        if colour.get(root):
            continue
        colour[root] = 1
        stack = [(root, iter(sorted(deps.get(root, ()))))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                stack.pop()
            elif colour.get(nxt) == 1:
                path = [n for n, _ in stack]
                return path[path.index(nxt):]
            elif not colour.get(nxt):
                colour[nxt] = 1
                stack.append((nxt, iter(sorted(deps.get(nxt, ())))))
    return []


def _route_once(sm, sim, fabric, workdir, sm_procs, extra) -> SMProcess:
    proc = SMProcess(sm, sim, fabric.sm_node, workdir, once=True, extra=extra)
    sm_procs.append(proc)
    rc = proc.start().wait_exit(ONCE_TIMEOUT)
    where = f"[{fabric.name} / {sm.name} -o {' '.join(extra)}]"
    assert rc == 0, f"{where} exit code {rc}\n{proc.tail()}"
    return proc


def _judge(sim, fabric, where):
    topo = checks.discover(sim, fabric.judge)
    lfts = checks.read_lfts(sim, fabric.judge, topo)
    problems = checks.check_lfts(topo, lfts)
    assert not problems, f"{where} unreachable routes:\n  " + "\n  ".join(problems[:20])
    return topo, lfts


def _describe(topo, cycle):
    return " -> ".join(f"{topo.nodes[g].desc}/{p}" for g, p in cycle)


@pytest.mark.parametrize("roots", ["file", "auto"])
def test_updn_torus_is_complete_and_credit_loop_free(fabric, sm, roots, sims, sm_procs, workdir):
    if roots == "auto" and sm.name == "opensm":
        pytest.skip("OpenSM finds no updn root on a torus and falls back to minhop")
    sim = sims(fabric)
    extra = ["-R", "updn"]
    if roots == "file":
        before = checks.discover(sim, fabric.judge)  # directed routes: no SM needed
        root_file = workdir / "roots.conf"
        text = f"# the torus has no top: pick one\n{before.by_desc[ROOT].guid:#018x}\n"
        if sm.name == "ibsm":  # OpenSM rejects a whole file over one bad line
            text += "not-a-guid\n0x00000000deadbeef  # no such switch\n"
        root_file.write_text(text)
        extra += ["-a", str(root_file)]
    proc = _route_once(sm, sim, fabric, workdir / "sm", sm_procs, extra)
    where = f"[{fabric.name} / {sm.name} -R updn, roots {roots}]"
    topo, lfts = _judge(sim, fabric, where)
    deps = channel_dependencies(topo, lfts)
    assert deps, f"{where} no channel dependencies at all: the judge saw no multi-hop path"
    cycle = find_cycle(deps)
    assert not cycle, f"{where} credit loop: {_describe(topo, cycle)}"
    if sm.name == "opensm":  # routed by updn itself, not by its silent minhop fallback
        assert "updn tables configured" in proc.log(), f"{where}\n{proc.tail()}"
    if sm.name == "ibsm":
        log = proc.log()
        assert "routing engine updn computed" in log, f"{where}\n{proc.tail()}"
        assert "CDG acyclic" in log, f"{where}\n{proc.tail()}"
        if roots == "file":  # the bad line and the unknown GUID are named, not fatal
            assert "IBSM-3007" in log and "roots.conf:3" in log, f"{where}\n{proc.tail()}"
            assert "IBSM-3005" in log and "0x00000000deadbeef" in log, f"{where}\n{proc.tail()}"
        report = (proc.cache_dir / "ibsm-route-report.txt").read_text()
        assert "engine: updn\n" in report and "cdg_acyclic: yes\n" in report, report


def test_minhop_torus_has_a_credit_loop(fabric, sm, sims, sm_procs, workdir):
    """The judge is not blind: both SMs' min-hop routes on this torus close a cycle."""
    sim = sims(fabric)
    _route_once(sm, sim, fabric, workdir / "sm", sm_procs, ["-R", "minhop"])
    where = f"[{fabric.name} / {sm.name} -R minhop]"
    topo, lfts = _judge(sim, fabric, where)
    assert find_cycle(channel_dependencies(topo, lfts)), f"{where} no cycle found"
