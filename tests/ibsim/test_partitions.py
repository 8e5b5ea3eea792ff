"""partitions.conf on ibsim: P_Key tables of hosts and of the switch ports facing them
are exactly what the file says (both SMs), and ibsm programs the same tables as
Debian's opensm on the same file and fabric (keys, full/limited bits and order).

ibsim models P_KeyTable on CA ports, switch port 0 and switch external ports (with
SwitchInfo.PartitionEnforcementCap), which is what is checked here.  It does not
enforce P_Keys on traffic, so enforcement is only checked as far as the tables go."""

from __future__ import annotations

import os
import re
import signal

import pytest

import checks
from ibsimlib import HarnessError, SMProcess, run_tool

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True, scope="module")

_row = re.compile(r"^\s*\d+:\s*((?:0x[0-9a-fA-F]{4}\s*)+)$")


def read_pkeys(sim, judge: str, lid: int, port: int | None = None) -> list[int]:
    """The table up to its last non-zero entry, via smpquery pkeys."""
    argv = ["smpquery", "pkeys", str(lid)] + ([str(port)] if port is not None else [])
    out = run_tool(sim, judge, argv).stdout
    keys: list[int] = []
    for line in out.splitlines():
        m = _row.match(line)
        if m:
            keys += [int(x, 16) for x in m.group(1).split()]
    while keys and keys[-1] == 0:
        keys.pop()
    if not keys:
        raise HarnessError(f"{' '.join(argv)}: no P_Keys in\n{out}")
    return keys


def partition_file(topo) -> tuple[str, dict[str, set[int]]]:
    """The file and, per host description, the P_Keys (with membership bit) it gives."""
    hca2 = topo.by_desc["Hca2"].ports[1].guid
    hca3 = topo.by_desc["Hca3"].ports[1].guid
    text = ("# ibsim partitions test\n"
            "Default=0x7fff, ipoib, defmember=full: ALL;\n"
            f"Compute=0x0002, ipoib: {hca2:#018x}=full,\n"
            f"        {hca3:#018x}=limited;\n"
            "Mgmt=0x0003: ALL_SWITCHES=full;\n")
    want = {
        "Hca1": {0xffff},
        "Hca2": {0xffff, 0x8002},
        "Hca3": {0xffff, 0x0002},
        "Hca4": {0xffff},
        "Switch1": {0xffff, 0x8003},
        "Switch2": {0xffff, 0x8003},
    }
    return text, want


def all_tables(sim, judge: str, topo) -> dict[str, list[int]]:
    """P_Key table of every CA port, switch port 0 and switch port facing a CA."""
    out = {}
    for node in topo.nodes.values():
        if node.is_switch:
            out[f"{node.desc}[0]"] = read_pkeys(sim, judge, node.lid)
            for p in sorted(node.ports.values(), key=lambda p: p.num):
                peer = topo.nodes.get(p.peer_guid)
                if peer is not None and not peer.is_switch:
                    out[f"{node.desc}[{p.num}]"] = read_pkeys(sim, judge, node.lid, p.num)
        else:
            for p in node.ports.values():
                out[f"{node.desc}[{p.num}]"] = read_pkeys(sim, judge, p.lid)
    return out


def run_sm(sm, sims, sm_procs, workdir, fabric, conf_text: str, tag: str):
    sim = sims(fabric, tag)
    topo0 = checks.discover(sim, fabric.judge)
    text, want = partition_file(topo0)
    conf = workdir / f"{tag}-partitions.conf"
    conf.write_text(conf_text or text)
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / f"{tag}-sm", once=False,
                     extra=["-P", str(conf)])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    topo = checks.discover(sim, fabric.judge)
    return sim, proc, topo, want, conf


def test_membership_exactly_as_the_file_says(fabric, sm, sims, sm_procs, workdir):
    sim, proc, topo, want, _ = run_sm(sm, sims, sm_procs, workdir, fabric, "", "pk")
    where = f"[{fabric.name} / {sm.name}]"
    got = all_tables(sim, fabric.judge, topo)
    problems = []
    for node in topo.nodes.values():
        if node.is_switch:
            key = f"{node.desc}[0]"
            if set(got[key]) - {0} != want[node.desc]:
                problems.append(f"{key}: {[hex(k) for k in got[key]]}, want "
                                f"{sorted(hex(k) for k in want[node.desc])}")
            for p in node.ports.values():
                peer = topo.nodes.get(p.peer_guid)
                if peer is None or peer.is_switch:
                    continue
                key = f"{node.desc}[{p.num}]"
                if set(got[key]) - {0} != want[peer.desc]:
                    problems.append(f"{key} (facing {peer.desc}): {[hex(k) for k in got[key]]}, "
                                    f"want {sorted(hex(k) for k in want[peer.desc])}")
        else:
            for p in node.ports.values():
                key = f"{node.desc}[{p.num}]"
                if set(got[key]) - {0} != want[node.desc]:
                    problems.append(f"{key}: {[hex(k) for k in got[key]]}, want "
                                    f"{sorted(hex(k) for k in want[node.desc])}")
    assert not problems, f"{where}\n  " + "\n  ".join(problems) + "\n" + proc.tail()


def test_ibsm_programs_the_same_tables_as_opensm(fabric, sm, sims, sm_procs, workdir):
    if sm.name != "ibsm":
        pytest.skip("compares ibsm with opensm; runs once")
    from ibsimlib import OpenSM
    ref = OpenSM()
    reason = ref.available()
    if reason:
        pytest.skip(reason)
    tables = {}
    for impl, tag in ((ref, "ref"), (sm, "dut")):
        sim, proc, topo, _, conf = run_sm(impl, sims, sm_procs, workdir, fabric, "", tag)
        tables[impl.name] = all_tables(sim, fabric.judge, topo)
        proc.stop(signal.SIGTERM, 2.0)
        sim.stop()
    a, b = tables["opensm"], tables["ibsm"]
    assert a.keys() == b.keys()
    diff = [f"{k}: opensm {[hex(x) for x in a[k]]} ibsm {[hex(x) for x in b[k]]}"
            for k in sorted(a) if a[k] != b[k]]
    assert not diff, "P_Key tables differ:\n  " + "\n  ".join(diff)


def test_broken_file_stops_ibsm_before_it_starts(fabric, sm, sims, workdir):
    if sm.name != "ibsm":
        pytest.skip("OpenSM falls back to the default partition instead")
    sim = sims(fabric, "broken")
    conf = workdir / "broken.conf"
    conf.write_text("Default=0x7fff: ALL=full;\nthis line has no colon\n")
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "broken-sm", once=False,
                     extra=["-P", str(conf)])
    proc.start()
    try:
        rc = proc.wait_exit(10)
    finally:
        proc.kill()
    out = proc.outfile.read_text(errors="replace")
    assert rc != 0, out
    assert re.search(re.escape(str(conf)) + r":\d+:\d+:", out), out


def test_sighup_reload_changes_one_port_and_broken_file_changes_nothing(fabric, sm, sims, sm_procs,
                                                                        workdir):
    """Dropping Hca3 from 0x0002 and sending SIGHUP changes Hca3 and the switch port
    facing it only; (ibsm) a broken file on SIGHUP keeps the last good configuration."""
    sim, proc, topo, _, conf = run_sm(sm, sims, sm_procs, workdir, fabric, "", "hup")
    where = f"[{fabric.name} / {sm.name}]"
    before = all_tables(sim, fabric.judge, topo)
    hca2 = topo.by_desc["Hca2"].ports[1].guid
    conf.write_text("Default=0x7fff, ipoib, defmember=full: ALL;\n"
                    f"Compute=0x0002, ipoib: {hca2:#018x}=full;\n"
                    "Mgmt=0x0003: ALL_SWITCHES=full;\n")
    ups = proc.count_up()
    proc.proc.send_signal(signal.SIGHUP)
    proc.wait_up(UP_TIMEOUT, ups + 1)
    after = all_tables(sim, fabric.judge, topo)
    changed = {k for k in before if before[k] != after[k]}
    sw_port = next(f"{n.desc}[{p.num}]" for n in topo.nodes.values() if n.is_switch
                   for p in n.ports.values() if p.peer_desc == "Hca3")
    assert changed == {"Hca3[1]", sw_port}, f"{where} changed: {sorted(changed)}\n{after}"
    assert after["Hca3[1]"] == [0xffff], f"{where} {after['Hca3[1]']}"
    if sm.name != "ibsm":
        return
    conf.write_text("Default=0x7fff: ALL=full;\nno colon here\n")
    ups = proc.count_up()
    proc.proc.send_signal(signal.SIGHUP)
    proc.wait_up(UP_TIMEOUT, ups + 1)
    again = all_tables(sim, fabric.judge, topo)
    assert again == after, f"{where} a broken file changed the fabric"
    assert "keeping the last good one" in proc.log(), proc.tail()
