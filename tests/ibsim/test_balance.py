"""Route-balancing inputs that change where routes go, judged from the switches' tables.

hop_weights_file (-w): on a ring of four switches, weighting sw0's port towards sw1
with 4 makes the direct hop dearer than going round the other way (3 hops), so sw0
sends sw1's host the long way; without the file it goes direct.

connect_roots (-z) with updn: with both spines of a two-level tree as roots, a spine
has no legal up/down path to the other spine's LID; -z adds one, so every switch then
reaches every LID.

Both run under OpenSM too: it implements both keys the same way.
"""

from __future__ import annotations

import os

import pytest

import checks
from conftest import FABRICS
import gen_fabric
from ibsimlib import SMProcess

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "90"))

FABRICS.setdefault("ring-4", (lambda: gen_fabric.torus([4], wrap=True, hosts=1), None, None))


def _route_once(sm, sim, fabric, workdir, sm_procs, extra) -> SMProcess:
    proc = SMProcess(sm, sim, fabric.sm_node, workdir, once=True, extra=extra)
    sm_procs.append(proc)
    rc = proc.start().wait_exit(ONCE_TIMEOUT)
    where = f"[{fabric.name} / {sm.name} -o {' '.join(extra)}]"
    assert rc == 0, f"{where} exit code {rc}\n{proc.tail()}"
    return proc


@pytest.mark.parametrize("fabric", ["ring-4"], indirect=True)
@pytest.mark.parametrize("weighted", [False, True])
def test_hop_weight_sends_routes_the_other_way(fabric, sm, weighted, sims, sm_procs, workdir):
    sim = sims(fabric)
    before = checks.discover(sim, fabric.judge)  # directed routes: no SM needed
    sw0 = before.by_desc["sw0"]
    # torus(): port 2 goes to the next switch (+1), port 3 to the previous one.
    assert before.nodes[sw0.ports[2].peer_guid].desc == "sw1"
    extra = ["-R", "minhop"]
    if weighted:
        weights = workdir / "hop_weights"
        weights.write_text(f"# sw0 -> sw1 costs 4 hops\n{sw0.guid:#018x} 2 4\n")
        extra += ["-w", str(weights)]
    _route_once(sm, sim, fabric, workdir / "sm", sm_procs, extra)
    where = f"[{fabric.name} / {sm.name} {' '.join(extra)}]"
    topo = checks.discover(sim, fabric.judge)
    lfts = checks.read_lfts(sim, fabric.judge, topo)
    problems = checks.check_lfts(topo, lfts)
    assert not problems, f"{where}\n  " + "\n  ".join(problems[:20])
    h1 = checks.lid_map(topo)["h1_0[1]"]
    assert lfts[sw0.guid][h1] == (3 if weighted else 2), where


@pytest.mark.parametrize("fabric", ["ft2-4x4"], indirect=True)
@pytest.mark.parametrize("connect", [False, True])
def test_connect_roots_routes_between_roots(fabric, sm, connect, sims, sm_procs, workdir):
    sim = sims(fabric)
    before = checks.discover(sim, fabric.judge)
    spines = [before.by_desc[f"spine{s}"] for s in range(4)]
    roots = workdir / "roots"
    roots.write_text("".join(f"{s.guid:#018x}\n" for s in spines))
    extra = ["-R", "updn", "-a", str(roots)] + (["-z"] if connect else [])
    _route_once(sm, sim, fabric, workdir / "sm", sm_procs, extra)
    where = f"[{fabric.name} / {sm.name} {' '.join(extra)}]"
    topo = checks.discover(sim, fabric.judge)
    lfts = checks.read_lfts(sim, fabric.judge, topo)
    spine0, spine1 = topo.by_desc["spine0"], topo.by_desc["spine1"]
    if connect:
        problems = checks.check_lfts(topo, lfts)
        assert not problems, f"{where}\n  " + "\n  ".join(problems[:20])
        assert lfts[spine0.guid].get(spine1.lid) in spine0.ports, where
    else:
        assert lfts[spine0.guid].get(spine1.lid) is None, where
