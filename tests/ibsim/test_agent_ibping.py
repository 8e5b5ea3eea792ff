"""`ibsm-agent ping-responder` answers ibping as `ibping -S` does.

The agent runs the responder as one simulated host (under umad2sim, registering vendor
class 0x32 with the OpenIB OUI), and infiniband-diags' real `ibping` on another host
pings that host's LID: every ping is answered with the responder's host name, and the
responder counts them when SIGTERM stops it (exit 0). Both SMs bring the fabric up; the
check does not depend on which. Waits poll with deadlines.

ibsim hands requests sent to QP1 only to a client marked IsSM (find_client), where a
kernel dispatches them by class; so the responder attaches with SIM_SET_ISSM. The SM then
queries that port's SMInfo, which umad2sim delivers by class: the responder's client-only
SMP agents keep that from crashing it (agent/ping_responder.cpp). They can only be
registered after umad2sim attached the process, so the responder starts (and registers)
before the SM does, as a node service starts before the SM reaches the host. The SM is
ibsm: OpenSM stays in discovery while that IsSM port leaves its SMInfo unanswered.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess

import pytest

from ibsimlib import SMProcess, run_tool, wait_for

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
AGENT = os.environ.get("IBSM_AGENT_BIN", "")
RESPONDER, CLIENT = "Hca3", "Hca2"

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True, scope="module")


def test_real_ibping_gets_answers_from_the_agent(fabric, sm, sims, sm_procs, workdir):
    if not AGENT or not os.access(AGENT, os.X_OK):
        pytest.skip("IBSM_AGENT_BIN is not set to an ibsm-agent binary")
    if not shutil.which("ibping"):
        pytest.skip("ibping (infiniband-diags) not installed")
    if sm.name != "ibsm":
        # OpenSM stays in DISCOVERING while the IsSM port ibsim needs here leaves its
        # SMInfo unanswered (no SUBNET UP in 30 s); ibsm goes on as master.
        pytest.skip("the simulated responder must be IsSM, which holds OpenSM in discovery")
    where = f"[{fabric.name} / {sm.name}]"
    sim = sims(fabric, "ping")
    cwd = workdir / "responder"
    cwd.mkdir()
    out = cwd / "out"
    with open(out, "wb") as fh:
        responder = subprocess.Popen([AGENT, "ping-responder"], cwd=cwd,
                                     env=sim.env(RESPONDER, issm=True),
                                     stdout=fh, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: "answering ibping" in out.read_text() or responder.poll() is not None,
                 20, "the responder to register the ping class")
        assert responder.poll() is None, f"{where} responder exited:\n{out.read_text()}"
        proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False)
        sm_procs.append(proc)
        proc.start().wait_up(UP_TIMEOUT)

        def responder_lid():
            r = run_tool(sim, RESPONDER, [AGENT, "show", "--format", "json"], check=False)
            if r.returncode != 0:
                return None
            port = json.loads(r.stdout)["devices"][0]["ports"][0]
            return port["lid"] if port["state"] == "ACTIVE" and port["lid"] else None

        lid = wait_for(responder_lid, UP_TIMEOUT, f"{RESPONDER} ACTIVE with a LID")
        r = run_tool(sim, CLIENT, ["ibping", "-c", "3", str(lid)], timeout=30, check=False)
        text = r.stdout + r.stderr
        assert "3 packets transmitted, 3 received, 0% packet loss" in text, f"{where}\n{text}"
        pongs = re.findall(r"^Pong from (\S+) \(Lid (\d+)\)", r.stdout, re.M)
        assert len(pongs) == 3, f"{where}\n{text}"
        assert all(p[0].split(".")[0] == socket.gethostname().split(".")[0] and
                   int(p[1]) == lid for p in pongs), f"{where} {pongs}"
    finally:
        if responder.poll() is None:
            responder.send_signal(signal.SIGTERM)
        try:
            code = responder.wait(timeout=10)
        except subprocess.TimeoutExpired:
            responder.kill()
            raise AssertionError(f"{where} the responder ignored SIGTERM:\n{out.read_text()}")
    assert code == 0, f"{where} responder exit {code}:\n{out.read_text()}"
    assert "answered 3 ibping request(s)" in out.read_text(), f"{where}\n{out.read_text()}"
