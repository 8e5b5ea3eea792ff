"""Self-tests of the harness: the generators produce nets ibsim accepts, and the
checks do fail on fabrics that are not configured or tables that are wrong.
(Not SM tests: they run without an SM or with OpenSM only as a fixture.)"""

from __future__ import annotations

import pytest

import checks
import gen_fabric
from conftest import Fabric
from ibsimlib import (NetModel, OpenSM, SMProcess, parse_iblinkinfo, parse_ibtracert,
                      parse_sminfo)

GENERATED = {
    "ft2": lambda: gen_fabric.ft2(radix=8, leaves=3, hosts_per_leaf=3, spines=2, parallel=2),
    "ft2-2port": lambda: gen_fabric.ft2(radix=8, leaves=2, hosts_per_leaf=2, spines=2, hca_ports=2),
    "kary": lambda: gen_fabric.kary(k=2, n=4),
    "ft3": lambda: gen_fabric.ft3(radix=4, pods=3),
    "torus": lambda: gen_fabric.torus([3, 2, 2], wrap=True, hosts=2),
    "mesh-2port": lambda: gen_fabric.torus([3, 3], wrap=False, hosts=1, hca_ports=2),
}


@pytest.mark.parametrize("kind", sorted(GENERATED))
def test_generated_net_matches_what_ibsim_builds(kind, tmp_path, sims):
    """ibsim parses the generated file and ibnetdiscover (no SM) sees exactly its links;
    with no SM every LID is 0 and no port is Active, so the checks must complain."""
    path = tmp_path / f"{kind}.net"
    path.write_text(GENERATED[kind]().render())
    fab = Fabric(kind, path)
    assert fab.model.order[0] == fab.model.cas[0], "hosts must come first"
    sim = sims(fab)
    topo = checks.discover(sim, fab.judge)
    problems = checks.check_discovery(topo, fab.model, fab.sm_node)
    assert problems and all("LID 0" in p for p in problems), problems
    assert len(problems) == len(topo.end_ports())
    inactive = checks.check_active(sim, fab.judge, fab.model, fab.sm_node)
    nports = sum(len(n.peers) for n in fab.model.nodes.values())
    assert len(inactive) == nports, inactive[:5]


def test_generator_shapes():
    m = gen_fabric.kary(k=4, n=3)
    assert sum(1 for k, _ in m.nodes.values() if k == "Switch") == 48
    assert sum(1 for k, _ in m.nodes.values() if k == "Hca") == 64
    m = gen_fabric.ft3(radix=8, pods=2)
    assert sum(1 for k, _ in m.nodes.values() if k == "Switch") == 2 * 8 + 16
    m = gen_fabric.ft2(radix=36, leaves=18, hosts_per_leaf=18, spines=18)
    assert len(m.nodes) == 36 + 324
    with pytest.raises(ValueError):
        gen_fabric.ft2(radix=8, leaves=2, hosts_per_leaf=6, spines=4)
    t = gen_fabric.torus([3, 3], wrap=True, hosts=1)
    assert sum(len(p) for p in t.ports.values()) // 2 == 9 + 18
    t = gen_fabric.torus([3, 3], wrap=False, hosts=1)
    assert sum(len(p) for p in t.ports.values()) // 2 == 9 + 12


def test_lft_check_catches_broken_tables(tmp_path, sims, sm_procs):
    """Take OpenSM's correct tables, then break them: the check must notice."""
    path = tmp_path / "f.net"
    path.write_text(gen_fabric.ft2(radix=8, leaves=2, hosts_per_leaf=2, spines=2).render())
    fab = Fabric("f", path)
    sim = sims(fab)
    proc = SMProcess(OpenSM(), sim, fab.sm_node, tmp_path / "sm", once=True)
    sm_procs.append(proc)
    assert proc.start().wait_exit(60) == 0
    topo = checks.discover(sim, fab.judge)
    lfts = checks.read_lfts(sim, fab.judge, topo)
    assert checks.check_lfts(topo, lfts) == []
    leaf = topo.by_desc["leaf0"]
    spine = topo.by_desc["spine0"]
    remote = topo.by_desc["h1_0"].ports[1].lid  # a host on leaf1
    up = lfts[leaf.guid][remote]
    # missing entry
    broken = {g: dict(t) for g, t in lfts.items()}
    del broken[leaf.guid][remote]
    assert any("missing" in p for p in checks.check_lfts(topo, broken))
    # entry to an unconnected port
    broken = {g: dict(t) for g, t in lfts.items()}
    broken[leaf.guid][remote] = 8
    assert any("not a connected port" in p for p in checks.check_lfts(topo, broken))
    # loop leaf0 <-> spine0
    broken = {g: dict(t) for g, t in lfts.items()}
    broken[leaf.guid][remote] = next(p for p, tp in leaf.ports.items() if tp.peer_guid == spine.guid)
    broken[spine.guid][remote] = leaf.ports[broken[leaf.guid][remote]].peer_port
    assert up is not None
    assert any("loop" in p for p in checks.check_lfts(topo, broken))


def test_parsers():
    assert parse_sminfo("sminfo: sm lid 1 sm guid 0x100001, activity count 116 priority 0 "
                        "state 3 SMINFO_MASTER")["guid"] == 0x100001
    hop = parse_ibtracert('From ca {0x0000000000100003} portnum 1 lid 4-4 "Hca2"\n'
                          '[1] -> switch port {0x0000000000200001}[1] lid 3-3 "Switch2"\n'
                          'To switch {0x0000000000200000} portnum 0 lid 1-1 "Switch1"\n')
    assert (hop["lid_lo"], hop["desc"]) == (1, "Switch1")
    st = parse_iblinkinfo(
        "Switch: 0x0000000000200000 Switch1:\n"
        "           1    1[  ] ==( 4X           2.5 Gbps Active/  LinkUp)==>       2    1[  ] \"Hca1\" ( )\n"
        "           1    4[  ] ==(                Down/ Polling)==>             [  ] \"\" ( )\n"
        "CA: Hca3:\n"
        "      0x0000000000100007      5    1[  ] ==( 4X           2.5 Gbps Armed/  LinkUp)==>       1    2[  ] \"Switch1\" ( )\n")
    assert st == {("Switch1", 1): ("Active", "LinkUp"), ("Switch1", 4): ("Down", "Polling"),
                  ("Hca3", 1): ("Armed", "LinkUp")}


def test_net_model_rejects_one_sided_link(tmp_path):
    p = tmp_path / "bad.net"
    p.write_text('Switch 4 "s"\n[1] "h"[1]\n\nHca 1 "h"\n')
    with pytest.raises(ValueError):
        NetModel(p)


def test_sigterm_ends_a_run_without_leaving_a_simulator(tmp_path):
    """meson test's timeout and CI runners end a run with SIGTERM. Simulators and SMs run
    in sessions of their own (so a signal to the run's group misses them): the harness
    must stop them itself. A child interpreter starts a simulator through the harness,
    says so, and is sent SIGTERM; afterwards no process of that simulator's session
    remains."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from ibsimlib import wait_for

    net = tmp_path / "ft2.net"
    net.write_text(GENERATED["ft2"]().render())
    here = Path(__file__).resolve().parent
    child = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(here)!r})\n"
        "from ibsimlib import Simulator\n"
        f"sim = Simulator({str(net)!r}, {str(tmp_path)!r}).start()\n"
        "print(sim.proc.pid, flush=True)\n"
        "time.sleep(120)\n")
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        sim_pid = int(proc.stdout.readline())
        assert os.path.exists(f"/proc/{sim_pid}")
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)

        def gone() -> bool:
            try:
                stat = Path(f"/proc/{sim_pid}/stat").read_text()
            except FileNotFoundError:
                return True
            return stat[stat.rindex(")") + 2] == "Z"
        wait_for(gone, 10, f"the simulator (pid {sim_pid}) to go after its run got SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
