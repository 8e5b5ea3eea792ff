"""ibsm-agent watch takes fabric changes up within 2 s through the port source it was given
(issue 38, part 4). `watch --port-source umad` used to read its change fingerprint from
sysfs, which under --root (and under umad2sim) never shows the simulated ports: a port
going Active or a new P_Key was only caught by the 60 s interval (55.6 s and 59.6 s
measured). Here watch runs with the default --interval (60 s) and --poll-ms (1 s), so
only its fingerprint of the umad port source can wake it in time.

The host is a --root tree (its IPoIB parent ib0; TreeKernel plays the kernel) whose ports
come live from ibsim through umad2sim. Two changes are timed: the SM's first sweep makes
the port Active with P_Key 0x8002 (watch must create ib0.8002), and the SM adds P_Key
0x8003 after a SIGHUP (watch must create ib0.8003). The change's time is bounded from
below by a probe (`ibsm-agent show`, looping) that last saw the port without it: the
latency reported, the child's P_Key file's mtime minus that probe's start, is an upper bound. The SM is
ibsm when IBSM_BIN is set, else Debian's OpenSM (the agent is what is under test).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from ibsimlib import Ibsm, OpenSM, SMProcess, wait_for
from test_agent_watch import host_tree, read

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
AGENT = os.environ.get("IBSM_AGENT_BIN", "")
HOST = "Hca3"
BOUND_S = 2.0  # the bound from the change to the applied child
DEADLINE_S = 20.0  # far below the 60 s interval: a miss fails instead of waiting for it



def show_port(sim, cwd: Path, host: str) -> dict | None:
    r = subprocess.run([AGENT, "show", "--format", "json", "--port-source", "umad"], cwd=cwd,
                       env=sim.env(host), capture_output=True, text=True, timeout=60,
                       start_new_session=True)
    if r.returncode != 0:
        return None
    ports = [p for d in json.loads(r.stdout)["devices"] for p in d["ports"]]
    return ports[0] if ports else None


def has_pkey(port: dict | None, pkey: str) -> bool:
    return bool(port) and port["state"] == "ACTIVE" and any(
        p["pkey"] == pkey for p in port["pkeys"])


class Probe:
    """Polls the port in a thread; remembers when the last poll without `pkey` began."""

    def __init__(self, sim, cwd: Path, host: str, pkey: str):
        self.sim, self.cwd, self.host, self.pkey = sim, cwd, host, pkey
        self.last_without = time.time()
        self.first_with: float | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop.is_set() and self.first_with is None:
            t = time.time()
            if has_pkey(show_port(self.sim, self.cwd, self.host), self.pkey):
                self.first_with = time.time()
            else:
                self.last_without = t

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(timeout=70)


def timed_child(probe: Probe, child: Path, pkey: str, what: str) -> float:
    # The SM's bring-up is not the watch's: first the probe sees the change, then the
    # watch has DEADLINE_S (far less than its 60 s interval) to apply it.
    wait_for(lambda: probe.first_with or read(child) == pkey + "\n", 2 * UP_TIMEOUT,
             f"P_Key {pkey} on {probe.host}'s port")
    wait_for(lambda: read(child) == pkey + "\n", DEADLINE_S, what)
    # When TreeKernel wrote the child's P_Key (wall clock, as the probe's times).
    return child.stat().st_mtime - probe.last_without


@pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True, scope="module")
def test_watch_applies_a_port_going_active_and_a_new_pkey_within_2s(fabric, sims, sm_procs,
                                                                    workdir):
    watch_latency(fabric, HOST, sims, sm_procs, workdir)


def test_watch_latency_on_a_random_25_switch_fabric(sims, sm_procs, workdir):
    """The issue's measurement: a random (jellyfish) fabric of 25 switches."""
    import gen_fabric
    from conftest import Fabric
    path = workdir / "jellyfish-25.net"
    path.write_text(gen_fabric.jellyfish(switches=25, net_ports=4, hosts=2, seed=38).render())
    fabric = Fabric("jellyfish-25", path)
    watch_latency(fabric, fabric.judge, sims, sm_procs, workdir)


def watch_latency(fabric, host: str, sims, sm_procs, workdir) -> None:
    if not AGENT or not os.access(AGENT, os.X_OK):
        pytest.skip("IBSM_AGENT_BIN is not set to an ibsm-agent binary")
    sm = Ibsm()
    if sm.available():
        sm = OpenSM()
        if sm.available():
            pytest.skip(sm.available())
    sim = sims(fabric, "watch-latency")
    cwd = workdir / "agent"
    cwd.mkdir()
    port = wait_for(lambda: show_port(sim, cwd, host), UP_TIMEOUT, f"{host}'s port through ibsim")
    assert port["state"] != "ACTIVE", f"{host} ACTIVE before any SM ran: {port}"
    root = workdir / "root"
    host_tree(root, port["port_guid"])
    net = root / "sys/class/net"
    log_path = workdir / "watch.log"
    log = open(log_path, "w")
    # The defaults: --interval 60 s, --poll-ms 1000.
    watch = subprocess.Popen([AGENT, "watch", "--root", str(root), "--port-source", "umad",
                              "--backend", "direct", "-c", str(root / "node.toml")],
                             cwd=cwd, env=sim.env(host), stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
    latencies = {}
    try:
        wait_for(lambda: "pass (start)" in log_path.read_text(), UP_TIMEOUT,
                 "the watch's first pass")
        assert watch.poll() is None, log_path.read_text()

        conf = workdir / "partitions.conf"
        conf.write_text("Default=0x7fff, ipoib, defmember=full : ALL, ALL_SWITCHES=full ;\n"
                        "storage=0x0002, ipoib, defmember=full : ALL ;\n")
        with Probe(sim, cwd, host, "0x8002") as probe:
            proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False,
                             extra=["-P", str(conf)])
            sm_procs.append(proc)
            proc.start()
            latencies["port Active with P_Key 0x8002"] = timed_child(
                probe, net / "ib0.8002/pkey", "0x8002",
                "the watch to create ib0.8002 after the port went Active")

        conf.write_text(conf.read_text() + "compute=0x0003, ipoib, defmember=full : ALL ;\n")
        with Probe(sim, cwd, host, "0x8003") as probe:
            proc.proc.send_signal(signal.SIGHUP)
            latencies["P_Key 0x8003 added"] = timed_child(
                probe, net / "ib0.8003/pkey", "0x8003",
                "the watch to create ib0.8003 after the SM added P_Key 0x0003")
        assert watch.poll() is None, "watch exited\n" + log_path.read_text()
    finally:
        if watch.poll() is None:
            watch.send_signal(signal.SIGTERM)
            try:
                watch.wait(timeout=10)
            except subprocess.TimeoutExpired:
                watch.kill()
                watch.wait()
        log.close()
    print(f"watch latency ({fabric.name}, {sm.name}): " +
          ", ".join(f"{k}: {v:.2f} s" for k, v in latencies.items()))
    text = log_path.read_text()
    assert "pass (ports changed)" in text, text
    for what, seconds in latencies.items():
        assert seconds <= BOUND_S, f"{what}: applied {seconds:.2f} s after the change\n{text}"
    assert watch.returncode == 0, text
