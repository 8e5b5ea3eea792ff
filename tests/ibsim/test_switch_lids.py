"""Switch LIDs on degraded fat trees: can the SM's own node read every switch, and does
ibsm's route report count what the programmed tables do? (Five fabrics: ft3-24p8-f3,
two small trees with a pulled cable, complete kary-4-3-64, and, with IBSIM_SLOW=1, the
5184-host tree with 2 % of its links removed.)

ft3-24p8-f3 (../shared/topologies: radix 24, 8 pods, 336 switches, 1152 hosts, 3 % of
the inter-switch links missing) leaves many switches without an up-then-down path from
some leaves. For -R ftree, updn and dnup in turn, ibsm -o routes the fabric and exits;
then, from the SM's node (where issue 29 found 25 switches it could not read),
ibnetdiscover gives the cabling and `ibroute` every switch's table. The judge:

* every switch answers ibroute (a LID-routed SMP there and its answer back);
* walked from every CA port, the tables deliver to every LID (CAs and switch port 0),
  and the CA-to-CA paths have an acyclic channel dependency graph (test_updn's judge;
  management paths to switches may use the escape layer's VL, which the tables alone do
  not show);
* the route report ibsm wrote (ibsm-route-report.txt) gives exactly the pair counts the
  walk finds: pairs, CA pairs, switch pairs and the unreachable ones of each.

OpenSM is not run here: it refuses these trees for ftree and routes minhop instead, and
it writes no route report to compare.

Runtime on 2 cores: about a minute per engine on ft3-24p8-f3 (336 ibroute runs, four at
a time; more make ibsim refuse clients, test_multicast.py), 25 s for the three small
fabrics together.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import checks
import degrade_fabric
import gen_fabric
from conftest import Fabric
from ibsimlib import SMProcess, Simulator, ToolError, parse_ibroute
from test_updn import find_cycle

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "240"))
SHARED = Path(os.environ.get("IBSM_TOPOLOGIES")
              or Path(__file__).resolve().parents[3] / "shared" / "topologies")
ENGINES = ["ftree", "updn", "dnup"]


def _ft3_cut():
    """ft3 radix 4, 4 pods (20 switches, 16 hosts), leaf p1l0's link to p1a0 pulled."""
    f = gen_fabric.ft3(radix=4, pods=4)
    f.unlink("p1l0", 3)
    return f


def _ft2_cut():
    """2-level radix 8, 4 leaves x 4 hosts, 4 spines; leaf 0's first uplink pulled."""
    f = gen_fabric.ft2(radix=8, leaves=4, hosts_per_leaf=4, spines=4)
    leaf = next(n for n in f.order if f.nodes[n][0] == "Switch")
    port = min(p for p, (peer, _) in f.ports[leaf].items() if f.nodes[peer][0] == "Switch")
    f.unlink(leaf, port)
    return f


def _ft3_5184_f2():
    """`degrade_fabric.py ft3-5184.net --fail-links 0.02 --seed 1`."""
    src = SHARED / "ft3-5184.net"
    if not src.exists():
        pytest.skip(f"{src} not installed")
    fab = degrade_fabric.read_net(src.read_text(), str(src))
    degrade_fabric.fail_links(fab, 0.02, random.Random(1))
    return fab


# name -> (net file or generator, switches, slow). The slow one (ft3-5184 with 2 % of its
# inter-switch links removed; some 5-15 minutes per engine) runs only with IBSIM_SLOW=1
# (docs/benchmarks.md, 2026-11-27).
FABRICS = {
    "ft3-24p8-f3": (SHARED / "ft3-24p8-f3.net", 336, False),
    "kary-4-3-64": (SHARED / "kary-4-3-64.net", 48, False),
    "ft3-r4-cut": (_ft3_cut, 20, False),
    "ft2-r8-cut": (_ft2_cut, 8, False),
    "ft3-5184-f2": (_ft3_5184_f2, 900, True),
}


@pytest.fixture(scope="module", params=list(FABRICS))
def degraded(request, tmp_path_factory):
    src, switches, slow = FABRICS[request.param]
    if slow and os.environ.get("IBSIM_SLOW") != "1":
        pytest.skip("slow fabric: set IBSIM_SLOW=1")
    if callable(src):
        path = tmp_path_factory.mktemp("fabrics") / f"{request.param}.net"
        path.write_text(src().render())
    elif not src.exists():
        pytest.skip(f"{src} not installed")
    else:
        path = src
    return Fabric(request.param, path), switches


def _ibroute_all(sim: Simulator, node: str, switches) -> tuple[dict, list[str]]:
    """Every switch's LFT read with ibroute as `node`, four at a time; and the switches
    that did not answer."""
    def one(sw):
        cwd = sim.workdir / f"clients-{threading.get_ident()}"
        cwd.mkdir(exist_ok=True)
        env = sim.env(node)
        env.pop("MALLOC_PERTURB_", None)
        try:
            cp = subprocess.run(["ibroute", "-n", str(sw.lid)], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=60,
                                start_new_session=True)
        except subprocess.TimeoutExpired:
            return sw, None
        finally:
            for d in cwd.glob("sys-*"):
                shutil.rmtree(d, ignore_errors=True)
        table = parse_ibroute(cp.stdout) if cp.returncode == 0 else {}
        return sw, table or None

    lfts, silent = {}, []
    with ThreadPoolExecutor(max_workers=4) as pool:
        for sw, table in pool.map(one, switches):
            if table is None:
                silent.append(f"{sw.desc} (LID {sw.lid})")
            else:
                lfts[sw.guid] = table
    return lfts, silent


def _pair_counts(topo, lfts) -> dict:
    """What the route report counts, from the tables alone: (source CA port, destination
    LID) pairs over every LID, delivered or not. Outcomes are memoised per (switch, LID):
    every CA behind a switch shares its switch's walk."""
    owners = topo.lid_owner()
    cas = [(n, p, lid) for n, p, lid in topo.end_ports() if not n.is_switch and lid]
    counts = dict(pairs=0, ca_pairs=0, switch_pairs=0, unreachable_ca_pairs=0,
                  unreachable_switch_pairs=0)
    for dlid, (dst, dport) in owners.items():
        to_switch = dst.is_switch
        outcome: dict[int, bool] = {}

        def delivers(sw) -> bool:
            path, node = [], sw
            ok = False
            for _ in range(checks.MAX_HOPS):
                if node.guid in outcome:
                    ok = outcome[node.guid]
                    break
                path.append(node.guid)
                out = lfts.get(node.guid, {}).get(dlid)
                if out is None:
                    break
                if out == 0:
                    ok = node is dst
                    break
                nxt = node.ports.get(out)
                peer = topo.nodes.get(nxt.peer_guid) if nxt else None
                if peer is None:
                    break
                if not peer.is_switch:
                    ok = peer is dst and nxt.peer_port == dport
                    break
                if peer.guid in path:
                    break  # a forwarding loop
                node = peer
            for g in path:
                outcome[g] = ok
            return ok

        for src, sport, slid in cas:
            if slid == dlid:
                continue
            leaf = topo.nodes.get(src.ports[sport].peer_guid)
            if leaf is None or not leaf.is_switch:
                continue
            counts["pairs"] += 1
            kind = "switch" if to_switch else "ca"
            counts[f"{kind}_pairs"] += 1
            if not delivers(leaf):
                counts[f"unreachable_{kind}_pairs"] += 1
    counts["unreachable_pairs"] = counts["unreachable_ca_pairs"] + counts["unreachable_switch_pairs"]
    return counts


def _ca_dependencies(topo, lfts) -> dict:
    """Channel dependencies of every CA -> CA path (the data VL)."""
    deps: dict = {}
    cas = [(n, p, lid) for n, p, lid in topo.end_ports() if not n.is_switch and lid]
    leaves = {topo.nodes[n.ports[p].peer_guid].guid for n, p, _ in cas
              if topo.nodes.get(n.ports[p].peer_guid) is not None}
    for _dst, _dport, dlid in cas:
        seen = set()
        for leaf in leaves:
            node, prev = topo.nodes[leaf], None
            for _ in range(checks.MAX_HOPS):
                out = lfts.get(node.guid, {}).get(dlid)
                nxt = node.ports.get(out) if out else None
                peer = topo.nodes.get(nxt.peer_guid) if nxt else None
                if peer is None or not peer.is_switch:
                    break
                ch = (node.guid, out)
                if prev is not None:
                    deps.setdefault(prev, set()).add(ch)
                if ch in seen:
                    break  # the rest of this path is walked already
                seen.add(ch)
                prev, node = ch, peer
    return deps


def _report(path: Path) -> dict:
    text = path.read_text()
    return {k: int(v) for k, v in re.findall(r"^(\w*pairs): (\d+)$", text, re.M)}


@pytest.mark.parametrize("engine", ENGINES)
def test_every_switch_answers_and_the_report_agrees(degraded, engine, sm, sims, tmp_path,
                                                   sm_procs):
    if sm.name != "ibsm":
        pytest.skip("the route report is ibsm's; OpenSM routes minhop on this tree")
    fabric, want_switches = degraded
    # A simulator per engine: after some 340 clients (ibnetdiscover, an ibroute per
    # switch) ibsim refuses the next SM's connection.
    sim = sims(fabric, "swlid")
    where = f"[{fabric.name} / ibsm -R {engine}]"
    proc = SMProcess(sm, sim, fabric.sm_node, tmp_path / "sm", once=True, extra=["-R", engine])
    sm_procs.append(proc)
    rc = proc.start().wait_exit(ONCE_TIMEOUT * (4 if want_switches > 500 else 1))
    assert rc == 0, f"{where} exit code {rc}\n{proc.tail()}"
    log = proc.log()
    assert f"routing engine {engine} computed" in log, f"{where}\n{proc.tail()}"
    assert "fell back" not in log, f"{where}\n{proc.tail()}"

    # Judged from the SM's own node, after ibsm has gone.
    try:
        topo = checks.discover(sim, fabric.sm_node)
    except ToolError as e:
        pytest.fail(f"{where} ibnetdiscover: {e}")
    switches = [n for n in topo.nodes.values() if n.is_switch]
    assert len(switches) == want_switches, f"{where} ibnetdiscover found {len(switches)} switches"
    lfts, silent = _ibroute_all(sim, fabric.sm_node, switches)
    assert not silent, f"{where} {len(silent)} switches do not answer ibroute: {silent[:10]}"

    counts = _pair_counts(topo, lfts)
    assert counts["unreachable_ca_pairs"] == 0, f"{where} {counts}"
    assert counts["unreachable_switch_pairs"] == 0, f"{where} {counts}"
    cycle = find_cycle(_ca_dependencies(topo, lfts))
    assert not cycle, f"{where} credit loop between CAs: " + " -> ".join(
        f"{topo.nodes[g].desc}/{p}" for g, p in cycle)

    report = _report(proc.cache_dir / "ibsm-route-report.txt")
    assert report == counts, f"{where} route report {report} != ibroute walk {counts}"
    assert "CDG acyclic" in log, f"{where}\n{proc.tail()}"
