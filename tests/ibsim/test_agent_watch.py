"""ibsm-agent as a node service on ibsim (issue 28's acceptance): `ibsm-agent watch`
starts first on a host whose port has no SM yet; ibsm starts 20 s later (the issue's
boot scenario: the agent must not need the SM at start) with a partitions.conf giving
the host P_Key 0x0002; the watch must create ib0.8002 by itself. Then partitions.conf
gains 0x0003 and ibsm re-reads it (SIGHUP); the watch must create ib0.8003. Finally
`verify --wait` returns 0. No agent command is run by hand in between.

The host is a --root tree (its IPoIB parent ib0, a kernel played by TreeKernel), with
ports and P_Keys read live from the simulator through umad2sim. Every wait is a
condition with a deadline; the 20 s before ibsm starts is the scenario, not a sync.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ibsimlib import Ibsm, SMProcess, wait_for

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
CHILD_TIMEOUT = 60.0  # a watch pass every 2 s; the SM's sweep and the SA in between
SM_DELAY = float(os.environ.get("AGENT_WATCH_SM_DELAY", "20"))
AGENT = os.environ.get("IBSM_AGENT_BIN", "")
HOST = "Hca3"

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True, scope="module")


def agent_env(sim) -> dict:
    return sim.env(HOST)


def show_port(sim, agent: str, cwd: Path) -> dict | None:
    import json
    r = subprocess.run([agent, "show", "--format", "json"], cwd=cwd, env=agent_env(sim),
                       capture_output=True, text=True, timeout=60, start_new_session=True)
    if r.returncode != 0:
        return None
    ports = [p for d in json.loads(r.stdout)["devices"] for p in d["ports"]]
    return ports[0] if ports else None


def read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        return ""


def host_tree(root: Path, guid: str) -> None:
    g = guid[2:]
    addr = "80:00:00:48:fe:80:00:00:00:00:00:00:" + ":".join(g[i:i + 2] for i in range(0, 16, 2))
    files = {
        "sys/class/net/ib0/type": "32\n", "sys/class/net/ib0/address": addr + "\n",
        "sys/class/net/ib0/mtu": "2044\n", "sys/class/net/ib0/mode": "datagram\n",
        "sys/class/net/ib0/pkey": "0xffff\n", "sys/class/net/ib0/operstate": "up\n",
        "sys/class/net/ib0/carrier": "1\n", "sys/class/net/ib0/ifalias": "\n",
        "sys/module/ib_ipoib/refcnt": "0\n",
        "node.toml": f'[[ipoib]]\nport = {{ guid = "{guid}" }}\npkeys = "auto"\n',
    }
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)


def test_watch_converges_when_the_sm_comes_and_when_partitions_change(fabric, sims, sm_procs,
                                                                      workdir):
    if not AGENT or not os.access(AGENT, os.X_OK):
        pytest.skip("IBSM_AGENT_BIN is not set to an ibsm-agent binary")
    ibsm = Ibsm()
    if ibsm.available():
        pytest.skip(ibsm.available())
    sim = sims(fabric, "watch")
    cwd = workdir / "agent"
    cwd.mkdir()
    port = wait_for(lambda: show_port(sim, AGENT, cwd), UP_TIMEOUT, f"{HOST}'s port through ibsim")
    assert port["state"] != "ACTIVE", f"{HOST} ACTIVE before any SM ran: {port}"
    root = workdir / "root"
    host_tree(root, port["port_guid"])
    net = root / "sys/class/net"
    common = ["--root", str(root), "--port-source", "umad", "--backend", "direct",
              "-c", str(root / "node.toml")]

    log = open(workdir / "watch.log", "w")
    watch = subprocess.Popen([AGENT, "watch", "--interval", "2", "--poll-ms", "500"] + common,
                             cwd=cwd, env=agent_env(sim), stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
    t_watch = time.monotonic()
    try:
        wait_for(lambda: "pass (start)" in (workdir / "watch.log").read_text(), UP_TIMEOUT,
                 "the watch's first pass")
        assert watch.poll() is None, (workdir / "watch.log").read_text()
        assert not (net / "ib0.8002").exists()

        # The scenario: the SM comes up 20 s after the agent.
        time.sleep(max(0.0, SM_DELAY - (time.monotonic() - t_watch)))
        conf = workdir / "partitions.conf"
        conf.write_text("Default=0x7fff, ipoib, defmember=full : ALL, ALL_SWITCHES=full ;\n"
                        "storage=0x0002, ipoib, defmember=full : ALL ;\n")
        proc = SMProcess(ibsm, sim, fabric.sm_node, workdir / "sm", once=False,
                         extra=["-P", str(conf)])
        sm_procs.append(proc)
        proc.start().wait_up(UP_TIMEOUT)
        # TreeKernel writes a new child's attributes one by one: wait for the P_Key's value.
        wait_for(lambda: read(net / "ib0.8002/pkey") == "0x8002\n", CHILD_TIMEOUT,
                 "the watch to create ib0.8002 after the SM came up")
        assert not (net / "ib0.8003").exists()

        # A new partition: the SM re-reads partitions.conf on SIGHUP.
        conf.write_text(conf.read_text() + "compute=0x0003, ipoib, defmember=full : ALL ;\n")
        proc.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: read(net / "ib0.8003/pkey") == "0x8003\n", CHILD_TIMEOUT,
                 "the watch to create ib0.8003 after the SM added P_Key 0x0003")

        r = subprocess.run([AGENT, "verify", "--wait=60"] + common, cwd=cwd, env=agent_env(sim),
                           capture_output=True, text=True, timeout=120, start_new_session=True)
        assert r.returncode == 0, f"verify --wait: {r.returncode}\n{r.stdout}\n{r.stderr}"
        assert "ok" in r.stdout and "ipoib ib0.8003" in r.stdout, r.stdout
        assert watch.poll() is None, "watch exited\n" + (workdir / "watch.log").read_text()
    finally:
        if watch.poll() is None:
            watch.send_signal(signal.SIGTERM)
            try:
                watch.wait(timeout=10)
            except subprocess.TimeoutExpired:
                watch.kill()
                watch.wait()
        log.close()
    assert watch.returncode == 0, (workdir / "watch.log").read_text()
