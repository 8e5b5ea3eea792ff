"""Two ibsm instances started the way ibsm@.service starts them (ibsm-launch
exec <port GUID>, PORTS listing both ports) on two ibsim fabrics: each one
brings up its own fabric only, with its own log, dump directory and guid2lid.

Each simulated fabric stands for one local port: the instance of port gA runs
with the simulator environment of fabric A (umad2sim only shows a process the
fabric of its IBSIM_SOCKNAME), exactly as a two-port host would run it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ibsim"))
from ibsimlib import (Simulator, Topology, _kill_group, _spawn, parse_sminfo,  # noqa: E402
                      run_tool, wait_for)

LAUNCH = os.environ.get("IBSM_LAUNCH", "")
IBSM_BIN = os.environ.get("IBSM_BIN", "")
UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "60"))

# Fabric A: one switch, three hosts, SM on the first host (port GUID 0x...100001).
NET_A = """\
Switch 8 "swA"
[1] "hA1"[1]
[2] "hA2"[1]
[3] "hA3"[1]

Hca 1 "hA1"
[1] "swA"[1]

Hca 1 "hA2"
[1] "swA"[2]

Hca 1 "hA3"
[1] "swA"[3]
"""
# Fabric B: two switches, three hosts, SM on the second host (a different GUID).
NET_B = """\
Switch 8 "swB1"
[1] "hB1"[1]
[2] "hB2"[1]
[5] "swB2"[5]

Switch 8 "swB2"
[1] "hB3"[1]
[5] "swB1"[5]

Hca 1 "hB1"
[1] "swB1"[1]

Hca 1 "hB2"
[1] "swB1"[2]

Hca 1 "hB3"
[1] "swB2"[1]
"""


def port_guid(sim: Simulator, node: str) -> str:
    out = run_tool(sim, node, ["ibstat", "-p"]).stdout.split()
    assert len(out) == 1, f"ibstat -p as {node}: {out}"
    return "0x%016x" % int(out[0], 16)


@pytest.fixture
def sims(tmp_path):
    started = []

    def make(text: str, tag: str) -> Simulator:
        net = tmp_path / f"{tag}.net"
        net.write_text(text)
        sim = Simulator(net, tmp_path / f"sim-{tag}", tag=tag)
        started.append(sim)
        return sim.start()

    yield make
    for s in started:
        s.stop()


@pytest.mark.skipif(not IBSM_BIN or not os.access(IBSM_BIN, os.X_OK), reason="IBSM_BIN not set")
def test_two_instances_two_fabrics(tmp_path, sims):
    sim_a, sim_b = sims(NET_A, "svcA"), sims(NET_B, "svcB")
    fabrics = {"A": (sim_a, "hA1", "hA3", 4), "B": (sim_b, "hB2", "hB3", 5)}
    guid = {k: port_guid(sim, sm) for k, (sim, sm, _, _) in fabrics.items()}
    assert guid["A"] != guid["B"], guid

    root = tmp_path / "root"
    (root / "etc/default").mkdir(parents=True)
    (root / "etc/default/ibsm").write_text(f'PORTS="{guid["A"]} {guid["B"]}"\nOPTIONS="-s 2"\n')
    env_dirs = {"IBSM_BIN": IBSM_BIN, "IBSM_LOG_DIR": str(tmp_path / "log"),
                "IBSM_CACHE_BASE": str(tmp_path / "cache"), "IBSM_DUMP_BASE": str(tmp_path / "log/ibsm")}
    (tmp_path / "log").mkdir()
    launch = ["/bin/sh", LAUNCH, "--root", str(root), "--sysfs", str(tmp_path / "no-sysfs")]
    listed = subprocess.run(launch + ["list"], capture_output=True, text=True, check=True,
                            env=dict(os.environ, **env_dirs), timeout=20).stdout.split()
    assert listed == [guid["A"], guid["B"]]

    procs = {}
    try:
        for k, (sim, sm, _, _) in fabrics.items():
            cwd = tmp_path / f"run-{k}"  # umad2sim writes ./sys-<pid>
            cwd.mkdir()
            env = sim.env(sm, issm=True)
            env.update(env_dirs)
            env.pop("OSM_CACHE_DIR", None)
            procs[k] = _spawn(launch + ["exec", guid[k]], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              stdout=open(cwd / "out", "wb"), stderr=subprocess.STDOUT)

        def log(k: str) -> Path:
            return tmp_path / "log" / f"ibsm.{guid[k]}.log"

        def text(p: Path) -> str:
            return p.read_text(errors="replace") if p.exists() else ""

        def died(k):
            def f():
                if procs[k].poll() is not None:
                    return (f"instance {k} exited {procs[k].returncode}:\n{text(log(k))[-2000:]}\n"
                            f"{text(tmp_path / f'run-{k}' / 'out')[-2000:]}")
                return None
            return f

        for k in fabrics:
            wait_for(lambda: "SUBNET UP" in text(log(k)), UP_TIMEOUT, f"SUBNET UP in {log(k)}", died(k))
            cache = tmp_path / "cache" / guid[k] / "guid2lid"
            wait_for(lambda: cache.exists() and cache.stat().st_size > 0, UP_TIMEOUT,
                     f"guid2lid in {cache.parent}", died(k))
            # Dump files land in the instance's own directory and name only its fabric.
            lst = tmp_path / "log/ibsm" / guid[k] / "opensm-subnet.lst"
            wait_for(lambda: lst.exists() and lst.stat().st_size > 0, UP_TIMEOUT, f"{lst}", died(k))
            names = set(re.findall(r"\{(\w+)\}", lst.read_text()))
            other = "hB" if k == "A" else "hA"
            assert names and not any(n.startswith(other) for n in names), f"{lst}: {names}"

        for k, (sim, sm, judge, nnodes) in fabrics.items():
            where = f"[fabric {k}]"
            topo = Topology(run_tool(sim, judge, ["ibnetdiscover"]).stdout)
            # Only its own nodes, every end port with a LID.
            assert len(topo.nodes) == nnodes, f"{where} {len(topo.nodes)} nodes:\n{topo.text}"
            descs = {n.desc for n in topo.nodes.values()}
            own = "hA" if k == "A" else "hB"
            assert all(own in d or ("sw" + k) in d for d in descs), f"{where} foreign nodes: {descs}"
            no_lid = [(n.desc, p) for n, p, lid in topo.end_ports() if lid == 0]
            assert not no_lid, f"{where} ports without LID: {no_lid}"
            # The master SM of this fabric is this fabric's instance.
            info = parse_sminfo(run_tool(sim, judge, ["sminfo"]).stdout)
            assert "0x%016x" % info["guid"] == guid[k] and info["state_name"] == "SMINFO_MASTER", \
                f"{where} sminfo: {info}"
            # Its guid2lid holds this fabric's ports only.
            g2l = (tmp_path / "cache" / guid[k] / "guid2lid").read_text()
            lids = {int(g, 16): int(lo, 0) for g, lo in re.findall(r"^(0x[0-9a-f]+)\s+(0x[0-9a-f]+|\d+)",
                                                                   g2l, re.M)}
            want = {topo.port_guid(n, p) for n, p, _ in topo.end_ports()}
            assert set(lids) == want, f"{where} guid2lid {sorted(map(hex, lids))} != {sorted(map(hex, want))}"

        # The logs are distinct files, each naming only its own port.
        la, lb = text(log("A")), text(log("B"))
        assert la != lb

        # SIGTERM (systemctl stop) ends both.
        for k, p in procs.items():
            p.send_signal(signal.SIGTERM)
            try:
                assert p.wait(10) == 0, f"instance {k} exit code {p.returncode}"
            except subprocess.TimeoutExpired:
                pytest.fail(f"instance {k} did not exit within 10 s of SIGTERM")
    finally:
        for p in procs.values():
            _kill_group(p)
