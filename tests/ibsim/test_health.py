"""Fabric health on ibsim (issue 35's acceptance, the SM's side): a leaf-spine link flapped
with Unlink/ReLink more often than hm_num_flapping_sweeps allows is isolated with
hm_sw_flapping_action isolate: opensm-unhealthy-ports.dump names it, ibroute on both
switches shows no LID through it while iblinkinfo shows it Active, and every CA pair is
still routed (ibroute walk and ibtracert); marking it HEALTHY in the policy file and
SIGHUP brings it back into routing. With `report` the LFTs do not change; a host's link
flapped the same way is reported, never isolated; a SymbolErrorCounter raised with
ibsim's PerformanceSet is found by the PerfMgr's sweeps.

The isolated port is also named, with both ends of its link, by `ibsm-ctl health --json`,
the port_unhealthy event and /metrics' ibsm_unhealthy_ports, and `ibsm-ctl health clear`
brings it back into routing. ibsm only: OpenSM has no health policy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

import checks
from conftest import make_fabric
from ibsimlib import Ibsm, SMProcess, free_tcp_port, parse_iblinkinfo, run_tool, wait_for

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "40"))
SETTLE_TIMEOUT = 30.0
DUMP = "opensm-unhealthy-ports.dump"
CTL = os.environ.get("IBSM_CTL_BIN") or (str(Path(os.environ.get("IBSM_BIN", "")).parent.parent / "ctl" / "ibsm-ctl"))


@pytest.fixture(scope="module")
def fabric(fabric_dir):
    return make_fabric("ft2-4x4", fabric_dir)


def _start(fabric, sims, sm_procs, workdir, keys: str, extra=()):
    impl = Ibsm()
    if why := impl.available():
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {why}")
        pytest.skip(why)
    sim = sims(fabric)
    conf = workdir / "opensm.conf"
    conf.write_text("log_flags 0x03\nhm_num_flapping_sweeps 2\nhm_num_flapping_sweeps_window 20\n"
                    + keys)
    proc = SMProcess(impl, sim, fabric.sm_node, workdir / "sm", once=False, sweep=1,
                     extra=["-F", str(conf), *extra])
    sm_procs.append(proc)
    proc.start()
    proc.wait_up(UP_TIMEOUT)
    return sim, proc, conf


def _isl(model, avoid: str):
    """A spine-leaf link (by name) away from the SM's leaf."""
    for (a, pa), (b, pb) in sorted(model.links()):
        if model.nodes[a].is_switch and model.nodes[b].is_switch and avoid not in (a, b):
            return a, pa, b, pb
    pytest.fail("no inter-switch link")


def _leaf_of(model, ca: str) -> tuple[str, int]:
    for (a, pa), (b, pb) in model.links():
        if a == ca:
            return b, pb
        if b == ca:
            return a, pa
    pytest.fail(f"{ca} has no link")


def _dump(proc) -> str:
    path = proc.dumpdir / DUMP
    return path.read_text() if path.exists() else ""


def _dump_lines(proc) -> list[str]:
    return [line for line in _dump(proc).splitlines() if line and not line.startswith("#")]


def _flap(sim, proc, node: str, port: int, until, what: str, tries: int = 6) -> None:
    """Unlink and ReLink (each brought back up by the SM) until `until()` holds."""
    for _ in range(tries):
        ups = proc.count_up()
        sim.command(f'Unlink "{node}"[{port}]')
        proc.wait_up(SETTLE_TIMEOUT, ups + 1)
        ups = proc.count_up()
        sim.command(f'ReLink "{node}"[{port}]')
        proc.wait_up(SETTLE_TIMEOUT, ups + 1)
        if until():
            return
    pytest.fail(f"{what} after {tries} flaps of {node}[{port}]\n{_dump(proc)}\n{proc.tail()}")


def _entries_to(sim, judge, topo, switch_desc: str, port: int) -> int:
    sw = next(n for n in topo.nodes.values() if n.is_switch and n.desc == switch_desc)
    table = checks.read_lfts(sim, judge, topo)[sw.guid]
    return sum(1 for out in table.values() if out == port)


def _settle(proc, sim, fabric, extra, what: str):
    """Every check (discovery, Active ports, LFT walk, ibtracert) plus `extra` passes."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        assert proc.alive(), f"SM exited {what}\n{proc.tail()}"
        topo, problems = checks.guarded_full_check(sim, fabric.judge, fabric.model, fabric.sm_node,
                                                   sminfo=False, tracert=True)
        if not problems:
            problems = extra(topo)
        if not problems:
            return topo
        if time.monotonic() >= deadline:
            pytest.fail(f"not settled {what}:\n  " + "\n  ".join(problems[:20]) + f"\n{proc.tail()}")
        time.sleep(0.2)


def test_flapping_isl_is_isolated_and_healthy_again(fabric, sims, sm_procs, workdir):
    policy = workdir / "health-policy"
    policy.write_text("# empty\n")
    sim, proc, _ = _start(fabric, sims, sm_procs, workdir,
                          f"hm_sw_flapping_action isolate\nhm_ports_health_policy_file {policy}\n")
    sm_leaf, _ = _leaf_of(fabric.model, fabric.sm_node)
    a, pa, b, pb = _isl(fabric.model, sm_leaf)
    _flap(sim, proc, a, pa, lambda: any("flapping isolate" in line for line in _dump_lines(proc)),
          "not isolated")
    lines = _dump_lines(proc)
    assert len(lines) == 1, lines  # one cable, one unhealthy port (its lower end)
    assert "IBSM-2804" in proc.log(), proc.tail()
    guid_hex, port_text = lines[0].split()[:2]

    def isolated(topo):
        problems = [f"{sw}[{p}] still carries {n} LFT entries"
                    for sw, p in ((a, pa), (b, pb))
                    if (n := _entries_to(sim, fabric.judge, topo, sw, p))]
        links = parse_iblinkinfo(run_tool(sim, fabric.judge, ["iblinkinfo"]).stdout)
        state = links.get((a, pa))
        if state is None or "Active" not in state[0]:
            problems.append(f"{a}[{pa}] is not Active: {state}")
        return problems
    _settle(proc, sim, fabric, isolated, "after the isolation")

    # HEALTHY in the policy file and SIGHUP: routed again.
    policy.write_text(f"{guid_hex} {port_text} HEALTHY\n")
    ups = proc.count_up()
    proc.proc.send_signal(signal.SIGHUP)
    proc.wait_up(SETTLE_TIMEOUT, ups + 1)
    wait_for(lambda: not _dump_lines(proc), 10, "the dump to lose the port", proc._exited)

    def routed(topo):
        return [] if _entries_to(sim, fabric.judge, topo, a, pa) else [f"{a}[{pa}] carries no route"]
    _settle(proc, sim, fabric, routed, "after HEALTHY and SIGHUP")


def _ctl(sock: Path, *words: str):
    cp = subprocess.run([CTL, "--socket", str(sock), "--json", *words], capture_output=True,
                        text=True, timeout=60)
    return json.loads(cp.stdout if cp.stdout.strip() else cp.stderr)


def test_isolation_is_named_by_ctl_events_and_metrics_and_ctl_clears_it(fabric, sims, sm_procs,
                                                                       workdir):
    if not os.access(CTL, os.X_OK):
        pytest.fail(f"ibsm-ctl not found at {CTL}")
    sockdir = Path(tempfile.mkdtemp(prefix="ibsm-health-"))
    sock = sockdir / "ctl.sock"
    mport = free_tcp_port()
    try:
        sim, proc, _ = _start(fabric, sims, sm_procs, workdir, "hm_sw_flapping_action isolate\n",
                              ["--ctl-socket", str(sock), "--metrics-listen", f"127.0.0.1:{mport}"])
        wait_for(sock.exists, 10, "the control socket")
        sm_leaf, _ = _leaf_of(fabric.model, fabric.sm_node)
        a, pa, b, pb = _isl(fabric.model, sm_leaf)
        _flap(sim, proc, a, pa, lambda: any("flapping isolate" in line for line in _dump_lines(proc)),
              "not isolated")
        guid_hex, port_text = _dump_lines(proc)[0].split()[:2]
        # ctl: the port, both ends named, what was done.
        ports = _ctl(sock, "health")["result"]
        assert len(ports) == 1, ports
        p = ports[0]
        assert (p["node_guid"], str(p["port"])) == (guid_hex, port_text), (p, guid_hex, port_text)
        assert (p["condition"], p["action"], p["asked"], p["downgrade"]) == \
            ("flapping", "isolate", "isolate", ""), p
        assert {p["node_name"], p["remote_name"]} == {a, b}, p
        assert {(p["node_name"], p["port"]), (p["remote_name"], p["remote_port"])} == \
            {(a, pa), (b, pb)}, p
        # The event, once, with the same port.
        events = _ctl(sock, "events", "--last", "1000")["result"]["events"]
        bad = [e for e in events if e["type"] == "port_unhealthy"]
        assert len(bad) == 1 and bad[0]["fields"]["guid"] == guid_hex, bad
        assert bad[0]["fields"]["action"] == "isolate", bad
        # /metrics.
        with urllib.request.urlopen(f"http://127.0.0.1:{mport}/metrics", timeout=10) as r:
            text = r.read().decode()
        assert re.search(r'^ibsm_unhealthy_ports\{condition="flapping",action="isolate"\} 1$', text,
                         re.M), [l for l in text.splitlines() if "unhealthy" in l]

        def isolated(topo):
            return [f"{sw}[{q}] still carries {n} LFT entries"
                    for sw, q in ((a, pa), (b, pb))
                    if (n := _entries_to(sim, fabric.judge, topo, sw, q))]
        _settle(proc, sim, fabric, isolated, "after the isolation")

        # ibsm-ctl health clear: healthy again, routed again, and the event says so.
        done = _ctl(sock, "health", "clear", guid_hex, port_text)
        assert done["ok"], done
        assert _ctl(sock, "health")["result"] == []
        wait_for(lambda: not _dump_lines(proc), 10, "the dump to lose the port", proc._exited)
        events = _ctl(sock, "events", "--last", "1000")["result"]["events"]
        assert any(e["type"] == "port_healthy" and e["fields"]["guid"] == guid_hex for e in events), events

        def routed(topo):
            return [] if _entries_to(sim, fabric.judge, topo, a, pa) else [f"{a}[{pa}] carries no route"]
        _settle(proc, sim, fabric, routed, "after health clear")
    finally:
        shutil.rmtree(sockdir, ignore_errors=True)


def test_report_leaves_the_lfts_alone(fabric, sims, sm_procs, workdir):
    sim, proc, _ = _start(fabric, sims, sm_procs, workdir, "")  # report: the default
    sm_leaf, _ = _leaf_of(fabric.model, fabric.sm_node)
    a, pa, _, _ = _isl(fabric.model, sm_leaf)
    topo = _settle(proc, sim, fabric, lambda t: [], "at start")
    before = checks.read_lfts(sim, fabric.judge, topo)
    _flap(sim, proc, a, pa, lambda: any("flapping report" in line for line in _dump_lines(proc)),
          "not reported")
    topo = _settle(proc, sim, fabric, lambda t: [], "after the flaps")
    assert checks.read_lfts(sim, fabric.judge, topo) == before


def test_host_link_is_reported_never_isolated(fabric, sims, sm_procs, workdir):
    sim, proc, _ = _start(fabric, sims, sm_procs, workdir,
                          "hm_sw_flapping_action isolate\nhm_ca_flapping_action isolate\n")
    host = next(c for c in fabric.model.cas if c not in (fabric.sm_node, fabric.judge))
    leaf, port = _leaf_of(fabric.model, host)
    _flap(sim, proc, host, 1, lambda: any("flapping" in line for line in _dump_lines(proc)),
          "not reported")
    lines = _dump_lines(proc)
    assert lines and all("flapping report" in line for line in lines if "flapping" in line), lines
    assert "IBSM-2806" in proc.log(), proc.tail()

    def host_routed(topo):
        return [] if _entries_to(sim, fabric.judge, topo, leaf, port) else [f"{host} not routed"]
    _settle(proc, sim, fabric, host_routed, "after the host's flaps")


def test_symbol_errors_found_by_the_perfmgr(fabric, sims, sm_procs, workdir):
    sim, proc, _ = _start(fabric, sims, sm_procs, workdir,
                          "perfmgr TRUE\nperfmgr_sweep_time_s 1\nhm_symbol_errors_per_hour 5\n")
    sm_leaf, _ = _leaf_of(fabric.model, fabric.sm_node)
    a, pa, _, _ = _isl(fabric.model, sm_leaf)
    # The PerfMgr's first reading is its baseline: the counter rises until a later one
    # sees the increase (two PerfMgr sweeps of a second each).
    value = [0]

    def found() -> bool:
        value[0] += 20
        sim.command(f'PerformanceSet "{a}"[{pa}] PortCounters.SymbolErrorCounter={value[0]}')
        return any("error_rate" in line for line in _dump_lines(proc))
    wait_for(found, 30, "the error_rate condition in the dump", proc._exited)
    assert "SymbolErrorCounter rose" in proc.log(), proc.tail()
