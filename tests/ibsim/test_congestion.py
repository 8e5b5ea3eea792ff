"""congestion_control under ibsim: the SM comes up without sending a CC MAD.

ibsim has no Congestion Control agent, and worse: its process_packet hands a request
to its SMP handlers by (class & 0xf), so a class 0x21 CACongestionSetting (0x16) Set
would be applied as a P_KeyTable Set of uninitialised data. ibsm refuses to register a
class 0x21 agent under umad2sim (IBSM-2604) and reaches SUBNET UP without CC; what the
CC MADs carry is tested byte for byte on the FakeFabric (tests/unit/sm/cc_test.cpp).
OpenSM sends them regardless, so this checks ibsm only."""

from __future__ import annotations

import os

import pytest

import checks
from ibsimlib import SMProcess

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "90"))

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca2port"], indirect=True,
                                     scope="module")


def test_congestion_control_on_ibsim_comes_up_without_cc(fabric, sm, sims, sm_procs, workdir):
    if sm.name != "ibsm":
        pytest.skip("OpenSM sends CC MADs, which ibsim applies as SMPs")
    sim = sims(fabric)
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=True,
                     extra=["--congestion_control", "--cc_key", "0x1234"])
    sm_procs.append(proc)
    rc = proc.start().wait_exit(ONCE_TIMEOUT)
    where = f"[{fabric.name} / {sm.name} -o --congestion_control]"
    assert rc == 0, f"{where} exit code {rc}\n{proc.tail()}"
    assert proc.count_up() >= 1, f"{where} no SUBNET UP\n{proc.tail()}"
    log = proc.log()
    assert log.count("IBSM-2604") == 1, f"{where} expected one IBSM-2604 line\n{proc.tail()}"
    assert "congestion control: " not in log.replace("IBSM-2604", ""), \
        f"{where} CC Sets were queued under umad2sim\n{proc.tail()}"
    topo, problems = checks.guarded_full_check(sim, fabric.judge, fabric.model, fabric.sm_node,
                                               sminfo=False, tracert=False)
    assert not problems, f"{where}\n  " + "\n  ".join(problems[:40])
