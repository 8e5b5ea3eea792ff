"""OpenSM-compatible flags whose effect an outside observer can see."""

from __future__ import annotations

import os
import signal

import pytest

import checks
from ibsimlib import HarnessError, SMProcess

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
STOP_LIMIT = float(os.environ.get("IBSIM_STOP_LIMIT", "1.0"))
OK_EXIT = {0, -signal.SIGINT, 128 + signal.SIGINT, -signal.SIGTERM, 128 + signal.SIGTERM}

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca2port"], indirect=True,
                                     scope="module")


def test_guid_priority_and_sigint(fabric, sm, sims, sm_procs, workdir):
    """-g names the SM port, -p sets the priority sminfo reports; SIGINT stops the
    daemon as promptly as SIGTERM.  (umad2sim attaches a client to port 1 of its
    node only, so -g cannot select port 2 of the 2-port HCA here.)"""
    sim = sims(fabric)
    topo0 = checks.discover(sim, fabric.judge)
    smport = topo0.by_desc[fabric.sm_node].ports[1].guid
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False,
                     extra=["-g", f"{smport:#018x}", "-p", "9"])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    where = f"[{fabric.name} / {sm.name} -g {smport:#x} -p 9]"
    topo = checks.discover(sim, fabric.judge)
    problems = checks.check_discovery(topo, fabric.model, fabric.sm_node)
    assert not problems, f"{where}\n  " + "\n  ".join(problems)
    try:
        info = checks.parse_sminfo(checks.run_tool(sim, fabric.judge, ["sminfo"]).stdout)
    except HarnessError as e:
        pytest.fail(f"{where} sminfo: {e}")
    assert info["guid"] == smport, f"{where} sminfo reports SM GUID {info['guid']:#x}"
    assert info["priority"] == 9, f"{where} sminfo reports priority {info['priority']}"
    took, rc = proc.stop(signal.SIGINT, STOP_LIMIT)
    assert took <= STOP_LIMIT and rc in OK_EXIT, f"{where} SIGINT: exit {rc} after {took:.2f}s"
