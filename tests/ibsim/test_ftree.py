"""Fat-tree routing (-R ftree) on a small 3-level tree, complete and with one cable pulled,
judged from the switches' tables alone.

ibnetdiscover gives the cabling, ibroute every switch's LFT. From those this file checks
that every CA port reaches every other CA port, counts the all-to-all routes on each
switch-to-switch channel (the edge forwarding index, EFI) against the lower bound of a
leaf's uplinks, and looks for a cycle in the channel dependency graph (test_updn.py's
judge). Nothing here knows how either SM routes.

The complete tree is a fat tree for OpenSM too. With one leaf-to-aggregation cable pulled
OpenSM's ftree refuses the fabric ("not a fat tree") and silently routes minhop; ibsm's
ftree must route it itself (its log says so, with no fallback).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

import checks
import gen_fabric
from conftest import FABRICS
from ibsimlib import SMProcess
from test_updn import channel_dependencies, find_cycle

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "90"))

# radix 4, 4 pods: 8 leaves x 2 hosts, 8 aggregation switches, 4 cores (16 hosts).
RADIX, PODS = 4, 4
HOSTS_PER_LEAF = RADIX // 2
CUT_LEAF = "p1l0"  # its port h+1 (to p1a0) is pulled in the degraded fabric


def _complete():
    return gen_fabric.ft3(radix=RADIX, pods=PODS)


def _one_link_cut():
    f = _complete()
    f.unlink(CUT_LEAF, HOSTS_PER_LEAF + 1)
    return f


FABRICS.setdefault("ftree-ft3", (_complete, None, None))
FABRICS.setdefault("ftree-ft3-cut", (_one_link_cut, None, None))


def _route_once(sm, sim, fabric, workdir, sm_procs) -> SMProcess:
    proc = SMProcess(sm, sim, fabric.sm_node, workdir, once=True, extra=["-R", "ftree"])
    sm_procs.append(proc)
    rc = proc.start().wait_exit(ONCE_TIMEOUT)
    assert rc == 0, f"[{fabric.name} / {sm.name}] exit code {rc}\n{proc.tail()}"
    return proc


def _ca_ports(topo):
    return [(n, p, lid) for n, p, lid in topo.end_ports() if not n.is_switch]


def _undelivered(topo, lfts) -> list[str]:
    """CA port -> CA port routes that do not arrive."""
    bad = []
    for src, sport, slid in _ca_ports(topo):
        for dst, dport, dlid in _ca_ports(topo):
            if dlid == slid:
                continue
            err = checks._walk(topo, lfts, src, sport, dlid, dst, dport)
            if err:
                bad.append(f"{src.desc} -> {dst.desc}: {err}")
    return bad


def _efi(topo, lfts) -> int:
    """The busiest switch-to-switch channel under all-to-all CA traffic."""
    load = Counter()
    for src, sport, slid in _ca_ports(topo):
        for _dst, _dport, dlid in _ca_ports(topo):
            if dlid == slid:
                continue
            node = topo.nodes.get(src.ports[sport].peer_guid)
            for _ in range(checks.MAX_HOPS):
                if node is None or not node.is_switch:
                    break
                out = lfts[node.guid].get(dlid)
                nxt = node.ports.get(out) if out else None
                if nxt is None:
                    break
                peer = topo.nodes.get(nxt.peer_guid)
                if peer is not None and peer.is_switch:
                    load[(node.guid, out)] += 1
                node = peer
    return max(load.values())


def _uplink_bound(topo, uplinks: int) -> int:
    """A leaf with H hosts and u uplinks sends H * (N - H) routes over u channels."""
    n = len(_ca_ports(topo))
    return -(-HOSTS_PER_LEAF * (n - HOSTS_PER_LEAF) // uplinks)


def _judge(sm, sim, fabric):
    where = f"[{fabric.name} / {sm.name} -R ftree]"
    topo = checks.discover(sim, fabric.judge)
    lfts = checks.read_lfts(sim, fabric.judge, topo)
    bad = _undelivered(topo, lfts)
    assert not bad, f"{where} undelivered:\n  " + "\n  ".join(bad[:20])
    deps = channel_dependencies(topo, lfts)
    assert deps, f"{where} no channel dependencies: the judge saw no multi-hop path"
    cycle = find_cycle(deps)
    assert not cycle, f"{where} credit loop: " + " -> ".join(
        f"{topo.nodes[g].desc}/{p}" for g, p in cycle)
    return where, topo, lfts


@pytest.mark.parametrize("fabric", ["ftree-ft3"], indirect=True)
def test_ftree_complete_tree_is_optimal(fabric, sm, sims, sm_procs, workdir):
    sim = sims(fabric)
    proc = _route_once(sm, sim, fabric, workdir / "sm", sm_procs)
    where, topo, lfts = _judge(sm, sim, fabric)
    # Every leaf has HOSTS_PER_LEAF uplinks: EFI at 2 * 14 / 2 = 14.
    assert _efi(topo, lfts) == _uplink_bound(topo, HOSTS_PER_LEAF), where
    if sm.name == "ibsm":
        log = proc.log()
        assert "routing engine ftree computed" in log, f"{where}\n{proc.tail()}"
        assert "CDG acyclic" in log, f"{where}\n{proc.tail()}"


@pytest.mark.parametrize("fabric", ["ftree-ft3-cut"], indirect=True)
def test_ftree_routes_a_tree_with_a_pulled_cable(fabric, sm, sims, sm_procs, workdir):
    sim = sims(fabric)
    proc = _route_once(sm, sim, fabric, workdir / "sm", sm_procs)
    where, topo, lfts = _judge(sm, sim, fabric)
    # The cut leaf has one uplink left: its hosts' 2 * 14 routes share it, nothing worse.
    assert _efi(topo, lfts) <= _uplink_bound(topo, HOSTS_PER_LEAF - 1), where
    if sm.name == "ibsm":
        log = proc.log()
        assert "routing engine ftree computed" in log, f"{where}\n{proc.tail()}"
        assert "fell back" not in log and "IBSM-3020" not in log, f"{where}\n{proc.tail()}"
