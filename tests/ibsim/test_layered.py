"""-R lash and -R nue end to end on a ring of switches, for both SMs, judged from what
the fabric holds (test_torus.py's judge: cabling, LFTs, PathRecord SLs and every switch's
SL2VL tables read with infiniband-diags, then a cycle search over (switch, output port,
VL) channels). On a 5-ring min-hop routes close a credit loop (test_torus shows the judge
finds such loops), so both engines must do something:

* lash puts switch pairs on 2 SLs, which the switches must map to distinct VLs;
* nue with one VL takes detours instead: no SLs at all, the LFTs alone are loop free;
* nue with 4 layers hands out an SL per destination;
* lash with do_mesh_analysis on a 5x5 torus: dimension-ordered paths on the SLs of the
  datelines they cross.
OpenSM runs with -Q where the engine needs SL2VL tables (its SL2VL programming needs QoS).
"""

from __future__ import annotations

import os

import pytest

import checks
from conftest import FABRICS
import gen_fabric
from ibsimlib import SMProcess
from test_torus import dependencies, describe, find_cycle, path_sls, read_routes, sl2vl_tables

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "60"))

FABRICS.setdefault("ring-5", (lambda: gen_fabric.torus([5], wrap=True, hosts=2), None, None))
FABRICS.setdefault("torus-5x5", (lambda: gen_fabric.torus([5, 5], wrap=True, hosts=1), None, None))

# engine id -> (SM arguments, OpenSM's extra arguments, whether paths carry SLs)
ENGINES = {
    "lash": (["-R", "lash"], ["-Q"], True),
    "nue-1vl": (["-R", "nue"], [], False),
    "nue-4vl": (["-R", "nue", "--nue_max_num_vls", "4"], ["-Q"], True),
}


@pytest.mark.parametrize("fabric", ["ring-5"], indirect=True)
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_layered_engine_is_credit_loop_free(engine, fabric, sm, sims, sm_procs, workdir):
    check_layered(*ENGINES[engine], fabric, sm, sims, sm_procs, workdir)


@pytest.mark.parametrize("fabric", ["torus-5x5"], indirect=True)
def test_lash_with_mesh_analysis_on_a_torus(fabric, sm, sims, sm_procs, workdir):
    check_layered(["-R", "lash", "--do_mesh_analysis"], ["-Q"], True, fabric, sm, sims, sm_procs,
                  workdir)


def check_layered(args, opensm_extra, with_sls, fabric, sm, sims, sm_procs, workdir):
    sim = sims(fabric)
    extra = args + (opensm_extra if sm.name == "opensm" else [])
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False, extra=extra)
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    where = f"[{fabric.name} / {sm.name} {' '.join(extra)}]"
    topo, lfts = read_routes(sim, fabric, where)

    if with_sls:
        ca_lids = sorted(lid for n, p, lid in topo.end_ports() if not n.is_switch)
        sls = path_sls(sim, fabric.judge, ca_lids, workdir)
        missing = [p for p, sl in sls.items() if sl is None]
        assert not missing, f"{where} no PathRecord for {missing[:10]}\n{proc.tail()}"
        assert max(sls.values()) > 0, f"{where} every pair on SL 0"
        tables = sl2vl_tables(sim, fabric.judge, topo)
    else:
        sls, tables = None, None  # one VL: the LFTs alone must be loop free
    deps, vls = dependencies(topo, lfts, sls, tables)
    assert deps, f"{where} no multi-hop path"
    cycle = find_cycle(deps)
    assert not cycle, f"{where} credit loop: {describe(topo, cycle)}\n{proc.tail()}"
    if with_sls:
        assert len(vls) > 1, f"{where} the SLs travel on one VL: {vls}"

    if sm.name == "ibsm":
        log = proc.log()
        name = args[1]
        assert f"routing engine {name} computed" in log, f"{where}\n{proc.tail()}"
        assert "CDG acyclic" in log, f"{where}\n{proc.tail()}"
        assert "fell back" not in log, f"{where}\n{proc.tail()}"
