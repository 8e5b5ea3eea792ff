"""qos TRUE with qos_* keys in opensm.conf: the VLArbitration and SL2VL tables ports hold.

ibsim stores VLArbitrationTable and SLtoVLMappingTable Sets (sim_mad.c do_vlarb,
do_sl2vl) and answers Gets with them, so `smpquery vlarb` and `smpquery sl2vl` on CA
ports and switch ports show what the SM programmed. ibsim does not store PortInfo
VLHighLimit and ignores SL2VL's optimized modifier bits (use_optimized_slvl): those
are unit-tested on the fake fabric (tests/unit/sm/qos_test.cpp). Both SMs run the same
opensm.conf, so the expectations are OpenSM's.
"""

from __future__ import annotations

import os
import re

import pytest

import checks
from ibsimlib import run_tool

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True,
                                     scope="module")

# ibsim's ports run VL0-7 (VLCap 4): VLs are masked with 7, so these stay as written.
CONF = """qos TRUE
qos_vlarb_high 0:4,1:8
qos_vlarb_low 0:0,1:32,2:64,3:16
qos_sl2vl 1,0,3,2,5,4,7,6,1,0,3,2,5,4,7,6
qos_ca_sl2vl 0,0,1,1,2,2,3,3,4,4,5,5,6,6,7,7
"""
HIGH = [(0, 4), (1, 8)]
LOW = [(0, 0), (1, 32), (2, 64), (3, 16)]
SWE_SL2VL = [1, 0, 3, 2, 5, 4, 7, 6, 1, 0, 3, 2, 5, 4, 7, 6]
CA_SL2VL = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]


def _vlarb(sim, node, lid: int, port: int | None) -> dict[str, list[tuple[int, int]]]:
    """smpquery vlarb: priority ("low", "high") -> (VL, weight) entries."""
    argv = ["smpquery", "vlarb", str(lid)] + ([str(port)] if port is not None else [])
    out = run_tool(sim, node, argv).stdout
    tables: dict[str, list[tuple[int, int]]] = {}
    for prio, body in re.findall(r"# (Low|High) priority VL Arbitration Table:\s*\n(.*?)(?=\n#|\Z)",
                                 out, re.S):
        vls = [int(v, 0) for v in re.findall(r"VL\s*:\s*\|(.*)\|", body)[0].split("|") if v.strip()]
        ws = [int(v, 0) for v in re.findall(r"WEIGHT\s*:\s*\|(.*)\|", body)[0].split("|")
              if v.strip()]
        tables[prio.lower()] = list(zip(vls, ws))
    assert tables, f"no VLArbitration table in:\n{out}"
    return tables


def _starts_with(held: list[tuple[int, int]], want: list[tuple[int, int]]) -> bool:
    return held[:len(want)] == want and all(w == 0 for _, w in held[len(want):])


def test_qos_tables_reach_ca_and_switch_ports(fabric, sm, sims, sm_procs, workdir):
    where = f"[{fabric.name} / {sm.name} qos TRUE]"
    proc, topo = checks.start_configured(sm, sims(fabric), fabric, workdir, sm_procs, CONF,
                                         UP_TIMEOUT, where)
    sim, judge = proc.sim, fabric.judge
    wrong = []
    checked = 0
    for n, p, lid in checks.connected_ports(topo):
        arb = _vlarb(sim, judge, lid, p.num if n.is_switch else None)
        if not _starts_with(arb.get("high", []), HIGH):
            wrong.append(f"{n.desc}/{p.num} high {arb.get('high')}")
        if not _starts_with(arb.get("low", []), LOW):
            wrong.append(f"{n.desc}/{p.num} low {arb.get('low')}")
        if n.is_switch:
            held = checks.read_sl2vl(sim, judge, lid, p.num)
            ins = [0] + [q.num for q in n.ports.values()
                         if q.num not in (0, p.num) and q.peer_guid is not None]
            for i in ins:
                if held.get(i) != SWE_SL2VL:
                    wrong.append(f"{n.desc} in {i} out {p.num}: {held.get(i)}")
        else:
            held = checks.read_sl2vl(sim, judge, lid)
            if held.get(0) != CA_SL2VL:
                wrong.append(f"{n.desc}/{p.num} sl2vl {held.get(0)}")
        checked += 1
    assert checked > 0, f"{where} no connected port found"
    assert not wrong, f"{where} tables not as configured:\n  " + "\n  ".join(wrong[:20]) + \
        f"\n{proc.tail()}"
    if sm.name == "ibsm":
        log = proc.log()
        assert "QoS: " in log and "VLArbitrationTable blocks" in log, f"{where}\n{proc.tail()}"
