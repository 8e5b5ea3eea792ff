"""ibsm-agent's broadcast_mtu = "auto" on ibsim: the agent, run as a simulated host
under umad2sim, asks the master SM's SA for the MCMemberRecord of each partition's IPoIB
broadcast group and plans with the group MTU partitions.conf gave it.

The default partition has `ipoib, mtu=5` (4096), Compute (0x0002) `ipoib, mtu=3` (1024),
and the node file also lists P_Key 0x0005, which has no partition and so no group. The
plan must allow `mtu = 4092` on the parent (datagram: 4096 - 4), report each learnt group
MTU as a note, and warn IBSM-6304 for 0x8005 (2048 fallback). An explicit
`broadcast_mtu = 2048` is not replaced: 4092 is then a plan error and the SA is not asked.
Both SMs (opensm and ibsm) are held to the same expectations. Waits poll with deadlines.

The guide's partition check: Fast (0x0003) has `ipoib, rate=7` (40 Gb/s), above the
simulated hosts' 4x SDR links (10 Gb/s). After the agent applied a child for 0x0003 (in
a tree), `verify` reads the group's MCMemberRecord and the port's PortInfoRecord from the
SA and fails ib0.8003 with IBSM-6120 naming P_Key, group and port rate. The default
partition's group fails too, for its MTU: ibsim's host ports run with a NeighborMTU of 2048,
below the group's 4096 (both SMs refuse such a join: OpenSM's validate_port_caps, ibsm's
port_can_carry).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from ibsimlib import SMProcess, Simulator, wait_for

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
SA_TIMEOUT = 30.0  # the SA serves once the SM is up; each failed agent run costs up to 3 s
AGENT = os.environ.get("IBSM_AGENT_BIN", "")
HOST = "Hca3"

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True, scope="module")

PARTITIONS = ("Default=0x7fff, ipoib, mtu=5, defmember=full: ALL, ALL_SWITCHES=full;\n"
              "Compute=0x0002, ipoib, mtu=3, defmember=full: ALL;\n"
              "Fast=0x0003, ipoib, rate=7, defmember=full: ALL;\n")


@pytest.fixture(scope="module")
def agent() -> str:
    if not AGENT or not os.access(AGENT, os.X_OK):
        pytest.skip("IBSM_AGENT_BIN is not set to an ibsm-agent binary")
    return AGENT


def run_agent(sim: Simulator, agent: str, args: list[str]) -> subprocess.CompletedProcess:
    # umad2sim creates ./sys-<pid> in the cwd; the agent runs in its own directory.
    cwd = sim.workdir / "agent"
    cwd.mkdir(exist_ok=True)
    return subprocess.run([agent] + args, cwd=cwd, env=sim.env(HOST), capture_output=True,
                          text=True, timeout=60, start_new_session=True)


def active_port(sim: Simulator, agent: str) -> dict | None:
    r = run_agent(sim, agent, ["show", "--format", "json"])
    if r.returncode != 0:
        return None
    ports = [p for d in json.loads(r.stdout)["devices"] for p in d["ports"]]
    return ports[0] if ports and ports[0]["state"] == "ACTIVE" and ports[0]["sm_lid"] else None


def host_tree(root: Path, guid: str, node_file: str, verb: str = "plan") -> list[str]:
    """A --root tree with the host's IPoIB parent ib0; returns the agent's plan arguments."""
    g = guid[2:]
    addr = "80:00:00:48:fe:80:00:00:00:00:00:00:" + ":".join(g[i:i + 2] for i in range(0, 16, 2))
    files = {
        "sys/class/net/ib0/type": "32\n", "sys/class/net/ib0/address": addr + "\n",
        "sys/class/net/ib0/mtu": "2044\n", "sys/class/net/ib0/mode": "datagram\n",
        "sys/class/net/ib0/pkey": "0xffff\n", "sys/class/net/ib0/operstate": "up\n",
        "sys/class/net/ib0/ifalias": "\n", "sys/module/ib_ipoib/refcnt": "0\n",
        "node.toml": node_file,
    }
    for path, content in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)
    return [verb, "--root", str(root), "--port-source", "umad", "--backend", "direct",
            "--format", "json", "-c", str(root / "node.toml")]


def test_auto_broadcast_mtu_is_read_from_the_sa(fabric, sm, sims, sm_procs, workdir, agent):
    where = f"[{fabric.name} / {sm.name}]"
    sim = sims(fabric, "gm")
    conf = workdir / "partitions.conf"
    conf.write_text(PARTITIONS)
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False, extra=["-P", str(conf)])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    port = wait_for(lambda: active_port(sim, agent), UP_TIMEOUT, f"{HOST} ACTIVE with an SM LID")

    auto_args = host_tree(workdir / "auto", port["port_guid"],
                          f'[[ipoib]]\nport = {{ guid = "{port["port_guid"]}" }}\nmtu = 4092\n'
                          "pkeys = [0x0002, 0x0005]\n")
    want_notes = {"ib0: broadcast group MTU 4096 (P_Key 0xffff, from the SA)",
                  "ib0.8002: broadcast group MTU 1024 (P_Key 0x8002, from the SA)"}
    runs: list[subprocess.CompletedProcess] = []

    def learnt():
        r = run_agent(sim, agent, auto_args)
        runs.append(r)
        return r if r.stdout and want_notes <= set(json.loads(r.stdout)["notes"]) else None

    try:
        r = wait_for(learnt, SA_TIMEOUT, "the agent to learn both group MTUs from the SA")
    except AssertionError as e:
        last = runs[-1] if runs else None
        raise AssertionError(f"{where} {e}\nlast run: exit {last and last.returncode}\n"
                             f"{last and last.stdout}\n{last and last.stderr}\n{proc.tail()}")
    plan = json.loads(r.stdout)
    assert r.returncode == 2, f"{where} plan exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert plan["errors"] == [], f"{where} mtu 4092 on a 4096 group: {plan['errors']}"
    # 0x0005 has no partition, so no broadcast group: a warning, and 2048 for that child.
    warnings = [l for l in r.stderr.splitlines() if l.startswith("warning ")]
    assert len(warnings) == 1 and "IBSM-6304" in warnings[0] and "P_Key 0x8005" in warnings[0], \
        f"{where} warnings: {warnings}"
    assert "ff12:401b:8005::ffff:ffff" in warnings[0], f"{where} {warnings[0]}"
    assert not any("0x8005" in n and "broadcast group MTU" in n for n in plan["notes"])

    # An explicit number wins: no SA question, and 4092 is above 2048 - 4.
    fixed_args = host_tree(workdir / "fixed", port["port_guid"],
                           f'[[ipoib]]\nport = {{ guid = "{port["port_guid"]}" }}\nmtu = 4092\n'
                           "broadcast_mtu = 2048\n")
    r = run_agent(sim, agent, fixed_args)
    plan = json.loads(r.stdout)
    assert r.returncode == 1, f"{where} plan exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    assert [e["id"] for e in plan["errors"]] == ["IBSM-6104"], f"{where} {plan['errors']}"
    assert "broadcast group MTU 2048 - 4" in plan["errors"][0]["message"]
    assert not any("from the SA" in n for n in plan["notes"]) and "warning" not in r.stderr

    # The guide's warning: a partition faster than the port. Apply the 0x0003 child into a
    # tree, then verify reads the groups and the port from the SA.
    node = (f'[[ipoib]]\nport = {{ guid = "{port["port_guid"]}" }}\nbroadcast_mtu = 2048\n'
            "pkeys = [0x0003]\n")
    apply_args = host_tree(workdir / "fit", port["port_guid"], node, "apply")
    r = run_agent(sim, agent, apply_args)
    assert r.returncode == 0, f"{where} apply exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    verify_args = ["verify" if a == "apply" else a for a in apply_args]
    r = run_agent(sim, agent, verify_args)
    verdicts = {v["resource"]: v for v in json.loads(r.stdout)["resources"]}
    assert r.returncode == 3, f"{where} verify exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    child = verdicts["ipoib ib0.8003"]
    assert child["state"] == "failed", f"{where} {child}"
    assert child["reason"].startswith("IBSM-6120: P_Key 0x8003 broadcast group "
                                      "ff12:401b:8003::ffff:ffff has rate 40 Gb/s"), f"{where} {child}"
    assert "rate 40 Gb/s above the port's 10 Gb/s" in child["reason"], f"{where} {child}"
    assert "MTU" not in child["reason"].split(": ", 2)[2].split(", so")[0], f"{where} {child}"
    parent = verdicts["ipoib ib0"]
    assert parent["state"] == "failed", f"{where} {parent}"
    assert "P_Key 0xffff broadcast group ff12:401b:ffff::ffff:ffff has rate 10 Gb/s and MTU " \
        "4096" in parent["reason"], f"{where} {parent}"
    assert "MTU 4096 above the port's 2048" in parent["reason"], f"{where} {parent}"
