"""Multicast joins and leaves the way real clients send them, judged by the switches' MFTs.

On a 4-ary 3-tree (48 switches, 64 hosts), each SM on its own ibsim: hosts join the way
Linux IPoIB does (the broadcast group the SM pre-creates, then a full-mask create of the
IPv4 all-hosts group ff12:401b:ffff::1 with the broadcast group's parameters), the way
rdma_cm does (a create with a zero MGID: the SA assigns one), a send-only join (JoinState
0x8, SendOnlyFullMember), then everybody leaves.

After each step the test waits (polling, deadline) until the MFTs every switch holds
(`ibroute -M`, SMPs) form, for each MLID with at least two member ports, a spanning tree:
a packet sent by any member port, flooded hop by hop through those MFTs over the cables of
the net file, reaches every other member port exactly once, reaches no other end port, and
arrives at no switch twice (no loop, no duplicate); every link it crosses has the bit set at
both ends (no dead branch) and no switch outside that tree holds the MLID.  Every other MLID (groups with fewer than two members, deleted groups) has no port
bit anywhere.  This is computed here from the dumps and the net file, not from either SM's
idea of the tree.  `saquery -g` / `saquery MCMR` must show the groups that exist (never
more than three at a time here: umad2sim carries one MAD, 224 intact bytes, three records),
and a trusted MCMemberRecord GetTable each member's JoinState.

OpenSM and ibsm are held to the same expectations: nothing differs (join and leave answers,
the SA-assigned MGID ff12:a01b:fe80::, even the trees were identical when this was written).
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import struct
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import checks
import sa_client as sac
from ibsimlib import NetModel, SMProcess, Simulator

HERE = Path(__file__).resolve().parent
UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
SHARED_NET = Path(os.environ.get("IBSM_TOPOLOGIES")
                  or Path(__file__).resolve().parents[3] / "shared" / "topologies") / "kary-4-3-64.net"
SM_NODE, JUDGE = "h0_0", "h15_3"
A, B, C, D = "h1_2", "h9_1", "h6_0", "h12_3"
STEP_TIMEOUT = 10.0

BCAST = bytes.fromhex("ff12401bffff0000" + "00000000ffffffff")
IPV4_ALL = bytes.fromhex("ff12401bffff0000" + "0000000000000001")
ZERO_MGID = bytes(16)

# MCMemberRecord component mask bits (IBA 15.2.5.17)
MGID, PORT_GID, QKEY, MLID, MTU_SEL, MTU, TCLASS, PKEY = (1 << i for i in range(8))
RATE_SEL, RATE, LIFE_SEL, LIFE, SL, FLOW, HOP, SCOPE, JOIN_STATE = (1 << i for i in range(8, 17))
IPOIB_BCAST_MASK = MGID | PORT_GID | PKEY | JOIN_STATE  # Linux ipoib_multicast.c, broadcast
IPOIB_CREATE_MASK = (IPOIB_BCAST_MASK | QKEY | MTU_SEL | MTU | TCLASS | RATE_SEL | RATE | SL | FLOW
                     | HOP)  # ipoib_mcast_join for any other group
RDMA_CM_MASK = MGID | PORT_GID | PKEY | JOIN_STATE | QKEY | SL | FLOW | TCLASS  # cma_join_ib_multicast
RDMA_UDP_QKEY = 0x01234567
FULL, SEND_ONLY_FULL = 0x1, 0x8


def net_file(tmp: Path) -> Path:
    if SHARED_NET.exists():
        return SHARED_NET
    import sys
    sys.path.insert(0, str(HERE.parent.parent / "fabrics"))
    import gen_fabric
    path = tmp / "kary-4-3-64.net"
    path.write_text(gen_fabric.kary(k=4, n=3).render())
    return path


# --------------------------------------------------------------------------- records

class Mcmr:
    """The fields of an MCMemberRecord a join sends or an answer carries."""

    def __init__(self, mgid=ZERO_MGID, port_gid=bytes(16), qkey=0, mlid=0, mtu=0, tclass=0,
                 pkey=0xFFFF, rate=0, life=0, sl=0, flow=0, hop=0, scope_join=0):
        self.mgid, self.port_gid, self.qkey, self.mlid = mgid, port_gid, qkey, mlid
        self.mtu, self.tclass, self.pkey, self.rate, self.life = mtu, tclass, pkey, rate, life
        self.sl, self.flow, self.hop, self.scope_join = sl, flow, hop, scope_join

    def encode(self) -> bytes:
        b = bytearray(56)
        b[0:16], b[16:32] = self.mgid, self.port_gid
        struct.pack_into(">IHBBHBBIB", b, 32, self.qkey, self.mlid, self.mtu, self.tclass, self.pkey,
                         self.rate, self.life, (self.sl << 28) | (self.flow << 8) | self.hop,
                         self.scope_join)
        return bytes(b)

    @classmethod
    def decode(cls, b: bytes) -> "Mcmr":
        qkey, mlid, mtu, tclass, pkey, rate, life, w, sj = struct.unpack_from(">IHBBHBBIB", b, 32)
        return cls(bytes(b[0:16]), bytes(b[16:32]), qkey, mlid, mtu, tclass, pkey, rate, life,
                   w >> 28, (w >> 8) & 0xFFFFF, w & 0xFF, sj)


def mgid_str(b: bytes) -> str:
    return str(ipaddress.IPv6Address(b))


# --------------------------------------------------------------------------- MFTs

def parse_mft(text: str) -> dict[int, set[int]]:
    """MLID -> ports, from `ibroute -M` (a 'Ports:' header gives the columns, 'x' a member)."""
    cols: dict[int, int] = {}
    table: dict[int, set[int]] = {}
    for line in text.splitlines():
        if line.strip().startswith("Ports:"):
            start = line.index(":") + 1
            cols = {m.start() + start: int(m.group()) for m in re.finditer(r"\d+", line[start:])}
            continue
        m = re.match(r"^(0x[0-9a-fA-F]+)\s", line)
        if m and cols:
            ports = {p for i, p in cols.items() if i < len(line) and line[i] == "x"}
            if ports:
                table[int(m.group(1), 16)] = ports
    return table


def check_mlid(model: NetModel, mfts: dict[str, dict[int, set[int]]], mlid: int,
               members: set[tuple[str, int]]) -> list[str]:
    """Flood a packet from each member port through the MFTs; see the module doc."""
    problems = []
    reached_sw: set[str] = set()
    for src in sorted(members):
        sw0, q0 = model.nodes[src[0]].peers[src[1]]
        got: dict[tuple[str, int], int] = {}
        seen = {sw0}
        todo = [(sw0, q0)]
        while todo:
            sw, inport = todo.pop()
            for p in sorted(mfts[sw].get(mlid, set()) - {inport}):
                if p == 0:
                    got[(sw, 0)] = got.get((sw, 0), 0) + 1
                    continue
                peer = model.nodes[sw].peers.get(p)
                if peer is None:
                    problems.append(f"{mlid:#x}: {sw} port {p} set but has no cable")
                    continue
                if model.nodes[peer[0]].is_switch:
                    if peer[0] in seen:
                        problems.append(f"{mlid:#x} from {src[0]}: {peer[0]} reached twice "
                                        f"(again from {sw}[{p}]): loop or duplicate")
                        continue
                    seen.add(peer[0])
                    todo.append(peer)
                    if peer[1] not in mfts[peer[0]].get(mlid, set()):
                        # a tree link has its bit set at both ends; else a branch that goes
                        # nowhere (the switch drops or never sends back)
                        problems.append(f"{mlid:#x}: {sw}[{p}] sends to {peer[0]}[{peer[1]}], "
                                        f"which has not that port set: dead branch")
                else:
                    got[peer] = got.get(peer, 0) + 1
        reached_sw |= seen
        want = members - {src}
        for m in sorted(want):
            if got.get(m, 0) != 1:
                problems.append(f"{mlid:#x} from {src[0]}: member {m[0]} reached {got.get(m, 0)} times")
        for m, n in sorted(got.items()):
            if m not in want and m != src:
                problems.append(f"{mlid:#x} from {src[0]}: non-member {m[0]}[{m[1]}] reached {n} times")
            if m == src:
                problems.append(f"{mlid:#x} from {src[0]}: sent back to its sender")
    orphans = sorted(s for s, t in mfts.items() if t.get(mlid) and s not in reached_sw)
    if orphans:
        problems.append(f"{mlid:#x}: entries on switches outside the tree: "
                        + ", ".join(f"{s}{sorted(mfts[s][mlid])}" for s in orphans[:8]))
    return problems


# --------------------------------------------------------------------------- the run

class Fabric:
    def __init__(self, sm, sim: Simulator, proc: SMProcess, model: NetModel):
        self.sm, self.sim, self.proc, self.model = sm, sim, proc, model
        self.topo = checks.discover(sim, JUDGE)
        self.sw_lid = {s: self.topo.by_desc[s].lid for s in model.switches}
        # 48 `ibroute -M` per snapshot, 4 at a time: one at a time is too slow for the time
        # budget; 8 at a time made ibsim refuse clients (sim_init: connect failed)
        self.pool = ThreadPoolExecutor(max_workers=4)

    def tool(self, argv: list[str]):
        """Like ibsimlib.run_tool, but in a directory of its own per thread: umad2sim makes
        sys-<pid> trees in the cwd, and run_tool removes all of them when it ends."""
        cwd = self.sim.workdir / f"clients-{threading.get_ident()}"
        cwd.mkdir(exist_ok=True)
        try:
            return subprocess.run(argv, cwd=cwd, env=self.sim.env(JUDGE), capture_output=True,
                                  text=True, timeout=30, start_new_session=True)
        finally:
            for d in cwd.glob("sys-*"):
                shutil.rmtree(d, ignore_errors=True)

    def mfts(self) -> dict[str, dict[int, set[int]]]:
        def one(sw):
            for _ in range(3):  # in case ibsim refuses a client (seen with 8 at once)
                cp = self.tool(["ibroute", "-M", str(self.sw_lid[sw])])
                if "connect failed" not in cp.stderr:
                    break
                time.sleep(0.2)
            if cp.returncode != 0:
                raise AssertionError(f"ibroute -M {self.sw_lid[sw]} ({sw}): rc {cp.returncode} "
                                     f"{cp.stderr[-500:]}")
            return sw, parse_mft(cp.stdout)
        return dict(self.pool.map(one, self.model.switches))

    def saquery(self, args: list[str]) -> str:
        return self.tool(["saquery", "-t", "2000"] + args).stdout


def split_records(out: str) -> list[str]:
    recs: list[list[str]] = []
    for line in out.splitlines():
        if re.match(r"^[A-Za-z].*dump:\s*$", line):
            recs.append([line])
        elif recs:
            recs[-1].append(line)
    return ["\n".join(r) for r in recs]


def sa_groups(fab: Fabric) -> dict[str, int]:
    """MGID -> MLID of the groups `saquery -g` shows."""
    out = {}
    for rec in split_records(fab.saquery(["-g"])):
        mg = re.search(r"MGID\.+(\S+)", rec)
        ml = re.search(r"Mlid\.+(0x[0-9a-fA-F]+)", rec)
        if mg and ml:
            out[str(ipaddress.IPv6Address(mg.group(1)))] = int(ml.group(1), 16)
    return out


def test_multicast_joins_trees_and_leaves(sm, workdir):
    t0 = time.monotonic()
    net = net_file(workdir)
    model = NetModel(net)
    sim = Simulator(net, workdir / "sim", sm.name)
    proc = fab = None
    clients: dict[str, sac.SaClient] = {}
    timings: dict[str, float] = {}
    try:
        sim.start()
        proc = SMProcess(sm, sim, SM_NODE, workdir / "sm", once=False)
        proc.start().wait_up(UP_TIMEOUT)
        fab = Fabric(sm, sim, proc, model)
        for h in (A, B, C, D):
            clients[h] = sac.SaClient(sim, h, workdir / f"client-{h}")

        # the groups as the test knows them: MGID -> {"mlid", "members": {host: JoinState}}
        groups: dict[bytes, dict] = {}
        deleted_mlids: set[int] = set()

        def join(host: str, rec: Mcmr, mask: int, state: int) -> Mcmr:
            cl = clients[host]
            rec.port_gid = cl.gid
            rec.scope_join = state
            r = cl.get(sac.ATTR_MCMEMBER_RECORD, mask, rec.encode(), method=sac.SET)
            assert r is not None, f"{sm.name}: no answer to {host}'s join of {mgid_str(rec.mgid)}"
            assert (r.method, r.status) == (sac.GET_RESP, 0), \
                f"{sm.name}: {host}'s join of {mgid_str(rec.mgid)}: method {r.method:#x} status {r.status:#x}"
            got = Mcmr.decode(r.data[:56])
            g = groups.setdefault(got.mgid, {"mlid": got.mlid, "members": {}})
            assert g["mlid"] == got.mlid, f"{sm.name}: {mgid_str(got.mgid)} MLID changed"
            g["members"][host] = g["members"].get(host, 0) | state
            return got

        def leave(host: str, mgid: bytes, state: int) -> None:
            cl = clients[host]
            rec = Mcmr(mgid=mgid, port_gid=cl.gid, scope_join=state)
            r = cl.get(sac.ATTR_MCMEMBER_RECORD, MGID | PORT_GID | JOIN_STATE, rec.encode(),
                       method=sac.DELETE)
            assert r is not None and (r.method, r.status) == (sac.DELETE_RESP, 0), \
                f"{sm.name}: {host}'s leave of {mgid_str(mgid)}: {r and (hex(r.method), hex(r.status))}"
            g = groups[mgid]
            left = g["members"].pop(host) & ~state
            if left:
                g["members"][host] = left
            if not g["members"] and mgid != BCAST:  # broadcast: partition-created, stays
                deleted_mlids.add(groups.pop(mgid)["mlid"])

        def check_members(step: str) -> None:
            """Each host's membership as the SA holds it (trusted GetTable on MGID|PortGID, as
            test_sa does): one record with the JoinState the test expects, or none."""
            wrong = []
            for mg, g in groups.items():
                for h, cl in clients.items():
                    rec = Mcmr(mgid=mg, port_gid=cl.gid)
                    r = cl.get(sac.ATTR_MCMEMBER_RECORD, MGID | PORT_GID, rec.encode(),
                               method=sac.GET_TABLE, sm_key=1)
                    recs = r.records() if r is not None else None
                    got = None if recs is None else [Mcmr.decode(x).scope_join & 0xF for x in recs]
                    want = [g["members"][h]] if h in g["members"] else []
                    if got != want:
                        wrong.append(f"{mgid_str(mg)} {h}: JoinStates {got}, want {want}")
            assert not wrong, f"{sm.name}, after {step}:\n  " + "\n  ".join(wrong)

        def settle(step: str) -> None:
            """Poll until the MFTs and the SA's group list match what the test expects."""
            t = time.monotonic()
            deadline = t + STEP_TIMEOUT
            rounds = 0
            time.sleep(0.5)  # both SMs answer before they program the switches (sa.md 5.2)
            while True:
                rounds += 1
                mfts = fab.mfts()
                problems = []
                want: dict[int, set] = {}
                for mg, g in groups.items():
                    want.setdefault(g["mlid"], set()).update((h, 1) for h in g["members"])
                for mlid, members in sorted(want.items()):
                    if len(members) >= 2:
                        problems += check_mlid(model, mfts, mlid, members)
                present = {m for t_ in mfts.values() for m in t_}
                for mlid in sorted(present):
                    if len(want.get(mlid, ())) < 2:
                        holders = [s for s, t_ in mfts.items() if mlid in t_]
                        why = ("deleted group" if mlid in deleted_mlids else
                               f"{len(want.get(mlid, ()))} member(s)" if mlid in want else "no group")
                        problems.append(f"{mlid:#x} ({why}) still set on {len(holders)} switches, "
                                        f"e.g. {holders[0]}{sorted(mfts[holders[0]][mlid])}")
                sag = sa_groups(fab)
                for mg, g in groups.items():
                    if sag.get(mgid_str(mg)) != g["mlid"]:
                        problems.append(f"saquery -g: {mgid_str(mg)} MLID {sag.get(mgid_str(mg))}, "
                                        f"joined with {g['mlid']:#x}")
                for s, mlid in sag.items():
                    if bytes(ipaddress.IPv6Address(s).packed) not in groups:
                        problems.append(f"saquery -g still shows {s} (MLID {mlid:#x})")
                # untrusted GetTable: one record per group, PortGID zero (both SMs)
                mcmr = {}
                for rec in split_records(fab.saquery(["MCMR"])):
                    mg = re.search(r"MGID\.+(\S+)", rec)
                    ml = re.search(r"mlid\.+(0x[0-9a-fA-F]+)", rec)
                    if mg and ml:
                        mcmr[str(ipaddress.IPv6Address(mg.group(1)))] = int(ml.group(1), 16)
                if mcmr != sag:
                    problems.append(f"saquery MCMR shows {mcmr}, saquery -g {sag}")
                if not problems:
                    timings[step] = (round(time.monotonic() - t, 2), rounds)
                    check_members(step)
                    return
                if time.monotonic() > deadline:
                    pytest.fail(f"{sm.name}, after {step}: not settled within {STEP_TIMEOUT}s:\n  "
                                + "\n  ".join(problems[:30]) + "\n" + proc.tail(1500))
                time.sleep(0.2)

        # 0: the SM pre-creates the IPoIB broadcast group with no members (no MFT entries)
        groups[BCAST] = {"mlid": sa_groups(fab).get(mgid_str(BCAST)), "members": {}}
        assert groups[BCAST]["mlid"], f"{sm.name}: no broadcast group in saquery -g"
        settle("start")

        # 1: IPoIB broadcast joins
        bc = None
        for h in (A, B, C):
            bc = join(h, Mcmr(mgid=BCAST, pkey=0xFFFF), IPOIB_BCAST_MASK, FULL)
        settle("broadcast joins")

        # 2: IPoIB creates/joins the IPv4 all-hosts group with the broadcast group's values
        def ipv4_rec() -> Mcmr:
            return Mcmr(mgid=IPV4_ALL, qkey=bc.qkey, mtu=(2 << 6) | (bc.mtu & 0x3F), tclass=bc.tclass,
                        pkey=0xFFFF, rate=(2 << 6) | (bc.rate & 0x3F), sl=bc.sl, flow=bc.flow, hop=bc.hop)
        v4 = [join(h, ipv4_rec(), IPOIB_CREATE_MASK, FULL) for h in (A, B, C)]
        assert v4[0].mlid != bc.mlid and v4[0].qkey == bc.qkey, f"{sm.name}: IPv4 group {vars(v4[0])}"
        settle("IPv4 group joins")

        # 3: rdma_cm: zero MGID, the SA assigns one; the second host joins the assigned MGID
        cm = join(A, Mcmr(qkey=RDMA_UDP_QKEY, tclass=bc.tclass, sl=bc.sl, flow=bc.flow),
                  RDMA_CM_MASK, FULL)
        assert cm.mgid != ZERO_MGID and cm.mgid[0] == 0xFF, f"{sm.name}: assigned MGID {mgid_str(cm.mgid)}"
        # OpenSM's scheme (osm_sa_mcmember_record.c, sa.md 5.2): ff1<scope>:a01b:<subnet
        # prefix>:<counter>, link-local scope without the Scope bit; ibsm follows it
        assert cm.mgid[:8] == bytes.fromhex("ff12a01bfe800000"), f"{sm.name}: {mgid_str(cm.mgid)}"
        join(B, Mcmr(mgid=cm.mgid, qkey=RDMA_UDP_QKEY, tclass=bc.tclass, sl=bc.sl, flow=bc.flow),
             RDMA_CM_MASK, FULL)
        settle("rdma_cm joins")

        # 4: a send-only join (SendOnlyFullMember) to the IPv4 group: D becomes a member port
        join(D, ipv4_rec(), IPOIB_CREATE_MASK, SEND_ONLY_FULL)
        settle("send-only join")

        # 5: leaves
        # 5: leaves down to one member per group (groups stay, MFT entries go), then all
        leave(D, IPV4_ALL, SEND_ONLY_FULL)
        leave(B, IPV4_ALL, FULL)
        leave(C, IPV4_ALL, FULL)
        leave(B, cm.mgid, FULL)
        leave(A, BCAST, FULL)
        leave(B, BCAST, FULL)
        settle("leaves down to one member per group")
        leave(A, IPV4_ALL, FULL)
        leave(A, cm.mgid, FULL)
        leave(C, BCAST, FULL)  # the broadcast group stays (partition-created, sa.md 5.3/5.4)
        settle("all left: IPv4 and rdma_cm groups deleted")
    finally:
        for cl in clients.values():
            cl.close()
        if fab is not None:
            fab.pool.shutdown()
        if proc is not None:
            proc.kill()
        sim.stop()
    print(f"{sm.name}: {time.monotonic() - t0:.1f}s, (settle s, snapshots) {timings}")
