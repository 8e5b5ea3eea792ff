"""Hostile wire (issue 14): ibsm as master keeps its fabric whatever reaches its agents.

A raw client on one CA (sa_client.py's pump, with --issm so it also holds SMI agents and
can send SMPs) fires seeded random MADs at the SM's LID without waiting for answers:
SA MADs with any method, attribute, modifier, status, SM_Key, component mask and
payload, some truncated, some "responses" that match no request; LID-routed SMInfo
Gets and Sets with random payloads, modifiers and wrong SM_Keys; Traps with garbage
notices (and floods of real-looking Trap 128s); GetResps that answer nothing. Before,
between and after, saquery and perfquery at the SM's LID must be answered, ibsm must be
alive, and `sminfo` must name it master. Then inter-switch links flap through the ibsim
console, and at the end every CA port is Active with the LID it had at the start and
every route is judged complete (checks.full_check: ibnetdiscover, port states, LFTs).

What the random MADs leave out, and why: class versions other than the SA's 2 and the
SMI's 1 (the kernel delivers a MAD only to an agent registered for its class and
version; umad2sim instead kills the receiving process, which would test umad2sim), and
SMPs that ibsim's own SMA answers (a random PortInfo Set to the SM's port would be the
fabric changing, not a hostile MAD to the SM). The seed is printed; IBSIM_HOSTILE_MADS
and IBSIM_HOSTILE_FLAPS scale the run (defaults 3000 and 20; issue 14 asks for 1000 flaps
in a long run). Under load a sweep after a flap can read the SM's own port as down for a
moment: ibsm then keeps its last fabric model and retries every second (IBSM-2208) instead
of settling on a fabric of one node, which this phase once caught. Only ibsm is
asserted: under umad2sim OpenSM 3.3.23 died within 3000 random SA MADs (issue 14), which
is umad2sim's doing as much as its own.
"""

from __future__ import annotations

import os
import random
import struct
import time
from pathlib import Path

import pytest

import checks
import sa_client as sac
from ibsimlib import Ibsm, NetModel, SMProcess, Simulator, run_tool
from sa_client import SaClient

import sys
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "fabrics"))
import gen_fabric  # noqa: E402

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
SETTLE_TIMEOUT = float(os.environ.get("IBSIM_SETTLE_TIMEOUT", "40"))
MADS = int(os.environ.get("IBSIM_HOSTILE_MADS", "3000"))
FLAPS = int(os.environ.get("IBSIM_HOSTILE_FLAPS", "20"))
SEED = int(os.environ.get("IBSIM_HOSTILE_SEED", "14"))
SM_NODE, JUDGE, CLIENT = "h0_0", "h3_3", "h2_1"

SA_ATTRS = [0x0001, 0x0003, 0x0011, 0x0012, 0x0013, 0x0014, 0x0015, 0x0017, 0x0018, 0x0020,
            0x0030, 0x0031, 0x0033, 0x0035, 0x0036, 0x0038, 0x0039, 0x003A, 0x00F3, 0x00F4]
SA_METHODS = [0x01, 0x02, 0x06, 0x12, 0x13, 0x14, 0x15, 0x81, 0x86, 0x92, 0x95]
ATTR_NOTICE, TRAP, TRAP_REPRESS = 0x0002, 0x05, 0x07


def sa_mad(rng: random.Random) -> bytes:
    """A random SA MAD (IBA 13.4.3 common header, 15.2.1 SA header), maybe truncated."""
    method = rng.choice(SA_METHODS) if rng.random() < 0.8 else rng.randrange(256)
    attr = rng.choice(SA_ATTRS) if rng.random() < 0.85 else rng.randrange(1 << 16)
    hdr = struct.pack(">BBBBHHQHHI", 1, sac.CLASS_SA, 2, method,
                      rng.choice([0, 0, rng.randrange(1 << 16)]), 0, rng.getrandbits(64),
                      attr, 0, rng.choice([0, rng.getrandbits(32)]))
    # RMPP header (12 bytes), SM_Key, AttributeOffset, reserved, ComponentMask
    sa = (bytes(rng.getrandbits(8) if rng.random() < 0.1 else 0 for _ in range(12))
          + struct.pack(">QHHQ", rng.choice([0, rng.getrandbits(64)]), rng.randrange(1 << 16), 0,
                        rng.getrandbits(64)))
    mad = hdr + sa + rng.randbytes(256 - len(hdr) - len(sa))
    if rng.random() < 0.1:
        mad = mad[:rng.randrange(256)]
    return mad


def smi_mad(rng: random.Random, sm_key_not: int) -> bytes:
    """A random LID-routed SMP for the SM itself: SMInfo Get/Set, a Trap, or a stray
    response (IBA 14.2.1.1 LID-routed SMP layout)."""
    kind = rng.random()
    if kind < 0.35:
        method, attr = rng.choice([0x01, 0x02]), sac.ATTR_SMINFO
    elif kind < 0.7:
        method, attr = TRAP, ATTR_NOTICE
    elif kind < 0.85:
        method, attr = 0x81, rng.choice([sac.ATTR_SMINFO, ATTR_NOTICE, 0x0011, 0x0015])
    else:
        method, attr = rng.choice([0x01, 0x02, TRAP, TRAP_REPRESS, 0x81, rng.randrange(256)]), \
            rng.choice([sac.ATTR_SMINFO, ATTR_NOTICE, 0xFF00 | rng.randrange(256)])
    hdr = struct.pack(">BBBBHHQHHIQ", 1, sac.CLASS_SMI_LID, 1, method, 0, 0, rng.getrandbits(64),
                      attr, 0, rng.getrandbits(32), rng.getrandbits(64))
    data = bytearray(rng.randbytes(64))
    if attr == sac.ATTR_SMINFO:
        key = rng.getrandbits(64)
        struct.pack_into(">Q", data, 8, key if key != sm_key_not else key ^ 1)  # never the key
    if method == TRAP and rng.random() < 0.3:
        data[0:6] = bytes([0x81, 0, 0, 2, 0, 128])  # generic, type 1, trap 128: sweeps
    return hdr + bytes(32) + bytes(data) + bytes(256 - len(hdr) - 32 - 64)


def alive_and_master(proc: SMProcess, sim: Simulator, topo, what: str) -> None:
    assert proc.alive(), f"ibsm exited after {what}\n{proc.tail()}"
    problems = checks.check_sminfo(sim, JUDGE, topo, SM_NODE)
    assert not problems, f"after {what}: " + "; ".join(problems)


def sa_and_pma_answer(sim: Simulator, sm_lid: int, what: str) -> None:
    cp = run_tool(sim, JUDGE, ["saquery", "-t", "2000", "NR"], check=False, timeout=30)
    assert cp.returncode == 0 and "NodeRecord" in cp.stdout, \
        f"saquery after {what}: rc {cp.returncode}\n{cp.stdout[-500:]}{cp.stderr[-500:]}"
    cp = run_tool(sim, JUDGE, ["perfquery", str(sm_lid), "1"], check=False, timeout=30)
    assert cp.returncode == 0 and "PortXmitData" in cp.stdout, \
        f"perfquery {sm_lid} after {what}: rc {cp.returncode}\n{cp.stderr[-500:]}"


def settle(proc: SMProcess, sim: Simulator, model: NetModel, what: str):
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        assert proc.alive(), f"ibsm exited after {what}\n{proc.tail()}"
        topo, problems = checks.guarded_full_check(sim, JUDGE, model, SM_NODE, sminfo=True,
                                                   tracert=False)
        if not problems:
            return topo
        if time.monotonic() > deadline:
            pytest.fail(f"not settled {SETTLE_TIMEOUT}s after {what}:\n  " + "\n  ".join(problems[:20]))
        time.sleep(0.3)  # poll period between complete judgements


@pytest.fixture
def ibsm_fabric(workdir):
    sm = Ibsm()
    why = sm.available()
    if why:
        if os.environ.get("IBSM_REQUIRE"):
            pytest.fail(why)
        pytest.skip(why)
    net = workdir / "ft2-4x4.net"
    net.write_text(gen_fabric.ft2(radix=8, leaves=4, hosts_per_leaf=4, spines=4).render())
    sim = Simulator(net, workdir / "sim", "hostile")
    sim.start()
    proc = SMProcess(sm, sim, SM_NODE, workdir / "sm", once=False, sweep=2)
    try:
        proc.start().wait_up(UP_TIMEOUT)
        yield sim, proc, NetModel(net)
    finally:
        proc.kill()
        sim.stop()


def test_hostile_mads_then_link_flaps(ibsm_fabric, workdir):
    sim, proc, model = ibsm_fabric
    rng = random.Random(SEED)
    print(f"seed {SEED}, {MADS} MADs of each kind, {FLAPS} flaps")
    topo0 = settle(proc, sim, model, "bring-up")
    lids0 = checks.lid_map(topo0)
    sm_lid = topo0.by_desc[SM_NODE].ports[1].lid
    sa_and_pma_answer(sim, sm_lid, "bring-up")

    with SaClient(sim, CLIENT, workdir / "client", issm=True) as client:
        for what, agent, make in (
                ("random SA MADs", "sa", lambda: sa_mad(rng)),
                ("random SMInfo/Trap/response SMPs", "smi", lambda: smi_mad(rng, 1))):
            sent = answers = 0
            for _ in range(0, MADS, 500):
                r = client.blast([make() for _ in range(min(500, MADS - sent))], dlid=sm_lid,
                                 agent=agent, drain=0.2)
                sent += r["sent"]
                answers += r["answers"]
                assert proc.alive(), f"ibsm exited during {what} ({sent} sent)\n{proc.tail()}"
            print(f"{what}: {sent} sent, {answers} answered")
            assert sent >= MADS * 0.99, f"{what}: only {sent} of {MADS} left the client"
            # They reached the SM: it answers every well-formed request (with an error
            # status where it must), and drops the rest.
            assert answers >= MADS * 0.2, f"{what}: only {answers} answers to {sent} MADs"
            alive_and_master(proc, sim, topo0, what)
            sa_and_pma_answer(sim, sm_lid, what)

    # Inter-switch links flap; the SM re-routes around each and back.
    isls = [((a, pa), (b, pb)) for (a, pa), (b, pb) in sorted(model.links())
            if model.nodes[a].is_switch and model.nodes[b].is_switch]
    for i in range(FLAPS):
        (a, pa), _ = isls[rng.randrange(len(isls))]
        sim.command(f'Unlink "{a}" {pa}')
        # How long the link stays down is part of the fault pattern (some flaps end
        # before the SM's next sweep, some after), not a wait for anything.
        time.sleep(rng.random() * 0.5)
        sim.command(f'ReLink "{a}" {pa}')
        assert proc.alive(), f"ibsm exited after flap {i + 1}\n{proc.tail()}"
    topo1 = settle(proc, sim, model, f"{FLAPS} link flaps")
    lids1 = checks.lid_map(topo1)
    moved = {p: (lids0.get(p), lid) for p, lid in lids1.items() if lids0.get(p) != lid}
    assert not moved, f"CA ports whose LID changed (before, after): {moved}"
    alive_and_master(proc, sim, topo1, "the whole run")
