"""-R dfsssp end to end on a ring of switches, for both SMs.

A ring of 5 switches cannot be routed with shortest paths free of credit loops on one
VL, so dfsssp needs 2 virtual layers and spreads the paths over the VLs the links
run (ibsim's ports: VLCap 4 = VL0-7). What this file checks is what a host sees:

* the SA's PathRecords (saquery -p) carry SLs beyond 0;
* every switch port pair and CA port maps SL i to VL i (smpquery sl2vl), so the
  layers really are separate VLs on every link. OpenSM programs SL2VL only with QoS
  on (-Q: its default qos_sl2vl is the identity), ibsm does it for dfsssp by itself;
* the LFTs reach every LID (the channel dependencies are checked per VL by ibsm's
  own route report, which the log shows).
"""

from __future__ import annotations

import os
import re

import pytest

import checks
from conftest import FABRICS
import gen_fabric
from ibsimlib import SMProcess, run_tool

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "60"))

FABRICS.setdefault("ring-5", (lambda: gen_fabric.torus([5], wrap=True, hosts=2), None, None))

pytestmark = pytest.mark.parametrize("fabric", ["ring-5"], indirect=True, scope="module")

# 8 VLs: SL 0-7 -> VL 0-7, SL 8-14 -> VL 0-6, SL 15 -> VL 7 (OpenSM's default
# qos_sl2vl masked by 7).
IDENTITY_8 = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]


def _start(sm, sim, fabric, workdir, sm_procs) -> SMProcess:
    extra = ["-R", "dfsssp"]
    if sm.name == "opensm":
        extra.append("-Q")  # OpenSM programs SL2VL only with QoS on
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False, extra=extra)
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    return proc


def _path_sl(sim, node, slid: int, dlid: int) -> int | None:
    """The SL of the PathRecord the SA answers for SLID -> DLID (saquery -p, one pair:
    ibsim carries one MAD per answer, too small for the whole table)."""
    cp = run_tool(sim, node, ["saquery", "-p", "--slid", str(slid), "--dlid", str(dlid)],
                  check=False)
    m = re.search(r"^\s*sl\.*(0x[0-9a-fA-F]+|\d+)\s*$", cp.stdout, re.M)
    return int(m.group(1), 0) if m else None


def test_dfsssp_ring_sls_and_sl2vl(fabric, sm, sims, sm_procs, workdir):
    sim = sims(fabric)
    proc = _start(sm, sim, fabric, workdir, sm_procs)
    where = f"[{fabric.name} / {sm.name} -R dfsssp]"
    judge = fabric.judge
    topo = checks.discover(sim, judge)
    lfts = checks.read_lfts(sim, judge, topo)
    problems = checks.check_lfts(topo, lfts)
    assert not problems, f"{where} unreachable routes:\n  " + "\n  ".join(problems[:20])

    ca_lids = sorted(lid for n, p, lid in topo.end_ports() if not n.is_switch)
    sls = {(a, b): _path_sl(sim, judge, a, b) for a in ca_lids for b in ca_lids if a != b}
    missing = [p for p, sl in sls.items() if sl is None]
    assert not missing, f"{where} no PathRecord for {missing[:10]}\n{proc.tail()}"
    used = sorted(set(sls.values()))
    assert max(used) > 0, f"{where} every CA pair on SL 0: {used}"
    assert max(used) < 8, f"{where} SLs beyond the 8 VLs: {used}"

    # Every switch (input, output) pair of up ports, and every CA port: identity.
    wrong = []
    for n in topo.nodes.values():
        if n.is_switch:
            for out_port in sorted(n.ports):
                held = checks.read_sl2vl(sim, judge, n.lid, out_port)
                for in_port in [0] + sorted(n.ports):
                    if in_port != out_port and held.get(in_port) != IDENTITY_8:
                        wrong.append(f"{n.desc} in {in_port} out {out_port}: {held.get(in_port)}")
        else:
            for p, tp in n.ports.items():
                held = checks.read_sl2vl(sim, judge, tp.lid)
                if held.get(0) != IDENTITY_8:
                    wrong.append(f"{n.desc}/{p}: {held}")
    assert not wrong, f"{where} SL2VL not identity:\n  " + "\n  ".join(wrong[:20])

    log = proc.log()
    if sm.name == "ibsm":
        assert "routing engine dfsssp computed" in log, f"{where}\n{proc.tail()}"
        assert "virtual layers" in log and "CDG acyclic" in log, f"{where}\n{proc.tail()}"
        assert "IBSM-3009" not in log, f"{where}\n{proc.tail()}"
    else:
        assert "dfsssp" in log.lower(), f"{where}\n{proc.tail()}"
