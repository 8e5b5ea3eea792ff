"""OpenSM-compatible flags whose effect an outside observer can see."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

import checks
from ibsimlib import HarnessError, SMProcess, wait_for

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


def test_node_name_map_per_module_logging_and_pidfile(fabric, sm, sims, sm_procs, workdir):
    """node_name_map_name names nodes in opensm-subnet.lst as in OpenSM (print_desc);
    a per_module_logging_file in OpenSM's format is taken without complaint; ibsm's
    -J pid file holds its PID while it runs and is gone after it exits (OpenSM writes
    it only with -B, so that part is ibsm's)."""
    sim = sims(fabric)
    topo0 = checks.discover(sim, fabric.judge)
    switch = next(n for n in topo0.nodes.values() if n.is_switch)
    names = workdir / "ib-node-name-map"
    names.write_text(f"# names\n{switch.guid:#018x} \"named-leaf-7\"\n")
    permod = workdir / "per-module-logging.conf"
    permod.write_text("# OpenSM's module names\nosm_sa.c 0x0f\nosm_ucast_mgr.c 0x08\n")
    conf = workdir / "opensm.conf"
    conf.write_text(f"node_name_map_name {names}\nper_module_logging_file {permod}\n")
    pidfile = workdir / "sm.pid"
    extra = ["-F", str(conf)] + (["-J", str(pidfile)] if sm.name == "ibsm" else [])
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False, extra=extra)
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    where = f"[{fabric.name} / {sm.name} node_name_map_name]"
    lst = proc.dumpdir / "opensm-subnet.lst"
    try:
        wait_for(lambda: lst.exists() and "{named-leaf-7}" in lst.read_text(), UP_TIMEOUT,
                 f"{lst} naming {switch.desc!r} named-leaf-7")
    except HarnessError as e:
        pytest.fail(f"{where} {e}")
    assert "{" + switch.desc + "}" not in lst.read_text(), f"{where} old name still in {lst}"
    if sm.name == "ibsm":
        assert pidfile.read_text().strip() == str(proc.proc.pid), f"{where} pid file"
        log = proc.log()
        assert "IBSM-502" not in log and "IBSM-205" not in log, f"{where} complaints:\n{log}"
    took, rc = proc.stop(signal.SIGTERM, STOP_LIMIT)
    assert rc in OK_EXIT, f"{where} exit {rc}"
    if sm.name == "ibsm":
        assert not pidfile.exists(), f"{where} pid file left behind after exit"


def test_unwritable_pidfile_stops_the_start(fabric, sm, workdir):
    """A -J pid file that cannot be written is an error naming it (exit 1, IBSM-5023)
    before the SM touches the fabric.  (OpenSM writes its pid file only with -B, after
    forking; ibsm checks it in the foreground too.)"""
    if sm.name != "ibsm":
        pytest.skip("OpenSM writes its pid file only with -B")
    bad = workdir / "no-such-dir" / "sm.pid"
    r = subprocess.run([sm.binary, "-f", str(workdir / "sm.log"), "-J", str(bad)],
                       capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert r.returncode == 1, f"exit {r.returncode}: {r.stderr}"
    assert "IBSM-5023" in r.stderr and str(bad) in r.stderr, r.stderr
