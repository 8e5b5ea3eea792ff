"""The QoS policy file (qos_policy_file, -Y) under ibsm and Debian's OpenSM.

Both SMs run with qos on, the same partitions.conf and the same policy on the same
ibsim fabric: port groups by GUID, by partition and by node type; qos-ulps with
`any, service-id`, `ipoib, pkey`, `sdp` and `srp`; qos-levels with sl, mtu-limit and
rate-limit; match rules on source, destination, service-id, pkey and qos-class. The
same PathRecord Gets (with and without ServiceID, P_Key, QoS class and SL) go to each
SM from the same hosts, and the status, SL, MTU, rate, P_Key and PacketLifeTime of every
answer must be OpenSM's. umad2sim carries one 256-byte MAD, so only single-record Gets.

ibsm then gets a policy with a syntax error on SIGHUP: it logs file:line:column and
keeps answering with the last good policy.
"""

from __future__ import annotations

import os
import signal

import pytest

import checks
import sa_client as sac
from ibsimlib import OpenSM, SMProcess, wait_for
from sa_client import SaClient

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True,
                                     scope="module")

PR = sac.PR_SGID | sac.PR_DGID


def files(topo) -> tuple[str, str]:
    g = {d: topo.by_desc[d].ports[1].guid for d in ("Hca2", "Hca3", "Hca4")}
    parts = ("Default=0x7fff, ipoib, defmember=full: ALL;\n"
             f"Compute=0x0002, ipoib: {g['Hca2']:#018x}=full, {g['Hca3']:#018x}=full;\n"
             f"Mgmt=0x0003: {g['Hca2']:#018x}=full, {g['Hca4']:#018x}=full, ALL_SWITCHES=full;\n")
    policy = f"""# ibsim QoS policy test
port-groups
    port-group
        name: Storage
        use: the storage host, by GUID
        port-guid: {g['Hca4']:#x}
    end-port-group
    port-group
        name: Compute
        partition: Compute
    end-port-group
    port-group
        name: Fabric
        node-type: SWITCH
    end-port-group
    port-group
        name: Hosts
        node-type: CA
    end-port-group
end-port-groups

qos-levels
    qos-level
        name: DEFAULT
        sl: 1
    end-qos-level
    qos-level
        name: storage
        sl: 2
        mtu-limit: 3
        rate-limit: 3
    end-qos-level
    qos-level
        name: mgmt
        sl: 3
        rate-limit: 2
    end-qos-level
    qos-level
        name: bulk
        sl: 4
        mtu-limit: 2
    end-qos-level
    qos-level
        name: partition3
        sl: 5
        mtu-limit: 1
        packet-life: 12
    end-qos-level
end-qos-levels

qos-match-rules
    qos-match-rule
        use: compute to storage
        source: Compute
        destination: Storage
        qos-level-name: storage
    end-qos-match-rule
    qos-match-rule
        destination: Fabric
        qos-level-name: mgmt
    end-qos-match-rule
    qos-match-rule
        source: Hosts
        service-id: 0x200-0x2ff
        qos-level-name: bulk
    end-qos-match-rule
    qos-match-rule
        pkey: 0x0003
        qos-level-name: partition3
    end-qos-match-rule
    qos-match-rule
        qos-class: 5
        qos-level-name: bulk
    end-qos-match-rule
end-qos-match-rules

qos-ulps
    default                       : 0
    any, service-id 0x100-0x1ff   : 6
    ipoib, pkey 0x0002            : 7
    sdp                           : 8
    srp, target-port-guid {g['Hca3']:#x} : 9
end-qos-ulps
"""
    return parts, policy


# (client node, destination, extra mask, PathRecord fields): each line exercises one rule.
QUERIES = [
    ("Hca2", "Hca4", 0, {}),                                   # source+destination groups
    ("Hca3", "Hca4", 0, {}),
    ("Hca2", "Switch1", 0, {}),                                # node type SWITCH
    ("Hca2", "Hca3", 0, {}),                                   # srp target
    ("Hca4", "Hca2", 0, {}),                                   # nothing: DEFAULT
    ("Hca3", "Hca2", sac.PR_SERVICE_ID, {"service_id": 0x250}),  # service-id + source
    ("Hca3", "Hca2", sac.PR_SERVICE_ID, {"service_id": 0x150}),  # any, service-id
    ("Hca3", "Hca2", sac.PR_SERVICE_ID, {"service_id": 0x10005}),  # sdp
    ("Hca3", "Hca2", sac.PR_SERVICE_ID, {"service_id": 0x999}),  # no rule
    ("Hca3", "Hca2", sac.PR_PKEY, {"pkey": 0x8002}),           # ipoib, pkey
    ("Hca4", "Hca2", sac.PR_PKEY, {"pkey": 0x8003}),           # pkey rule, packet-life
    ("Hca4", "Hca2", sac.PR_PKEY, {"pkey": 0xFFFF}),
    ("Hca4", "Hca2", sac.PR_QOS_CLASS, {"qos_class": 5}),      # qos-class
    ("Hca4", "Hca2", sac.PR_QOS_CLASS, {"qos_class": 6}),
    ("Hca4", "Hca2", sac.PR_SL, {"sl": 1}),                    # the level's SL: served
    ("Hca4", "Hca2", sac.PR_SL, {"sl": 3}),                    # another SL: no path
    ("Hca2", "Hca4", sac.PR_SERVICE_ID | sac.PR_PKEY | sac.PR_QOS_CLASS,
     {"service_id": 0x250, "pkey": 0x8003, "qos_class": 5}),   # first rule wins
]


def ask(cl: SaClient, topo, dst: str, extra: int, fields: dict) -> tuple:
    node = topo.by_desc[dst]
    guid = node.guid if node.is_switch else node.ports[1].guid
    pr = sac.PathRecord(sgid=cl.gid, dgid=sac.gid_bytes(0xFE80000000000000, guid), **fields)
    a = cl.get(sac.ATTR_PATH_RECORD, PR | extra, pr.encode())
    if a is None:
        return ("no answer",)
    recs = a.records() if a.status == 0 else []
    if len(recs) != 1:
        return (f"status {a.status:#06x}", len(recs))
    p = sac.PathRecord.decode(recs[0])
    return (f"sl {p.sl}", f"mtu {p.mtu & 0x3f}", f"rate {p.rate & 0x3f}", f"pkey {p.pkey:#06x}",
            f"life {p.pkt_life & 0x3f}")


def run(impl, sims, sm_procs, workdir, fabric, tag: str, g2l=None):
    sim = sims(fabric, tag)
    topo0 = checks.discover(sim, fabric.judge)
    parts, policy = files(topo0)
    (workdir / f"{tag}-partitions.conf").write_text(parts)
    (workdir / f"{tag}-qos-policy.conf").write_text(policy)
    cache = workdir / f"{tag}-sm" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    if g2l is not None:
        (cache / "guid2lid").write_bytes(g2l)
    proc = SMProcess(impl, sim, fabric.sm_node, workdir / f"{tag}-sm", once=False, cache_dir=cache,
                     extra=["-Q", "-P", str(workdir / f"{tag}-partitions.conf"),
                            "-Y", str(workdir / f"{tag}-qos-policy.conf")])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    topo = checks.discover(sim, fabric.judge)
    return sim, proc, topo


def answers(sim, topo, workdir, tag: str) -> dict:
    out = {}
    clients = {}
    try:
        for i, (src, dst, extra, fields) in enumerate(QUERIES):
            if src not in clients:
                clients[src] = SaClient(sim, src, workdir / f"client-{tag}-{src}")
            out[(i, src, dst, tuple(sorted(fields.items())))] = ask(clients[src], topo, dst, extra,
                                                                     fields)
    finally:
        for c in clients.values():
            c.close()
    return out


def test_pathrecords_follow_the_policy_as_opensm(fabric, sm, sims, sm_procs, workdir):
    if sm.name != "ibsm":
        pytest.skip("compares ibsm with opensm; runs once")
    ref = OpenSM()
    reason = ref.available()
    if reason:
        pytest.skip(reason)
    got = {}
    g2l = None
    for impl, tag in ((ref, "ref"), (sm, "dut")):
        sim, proc, topo = run(impl, sims, sm_procs, workdir, fabric, tag, g2l)
        got[impl.name] = answers(sim, topo, workdir, tag)
        if impl is ref:
            g2l = (proc.cache_dir / "guid2lid").read_bytes()
            log = proc.log()
            # OpenSM names its QoS parser errors "ERR AC0n"; a bare "AC0" also
            # matches thread ids such as [F4AC0740].
            assert "Failed parsing QoS policy" not in log and "ERR AC0" not in log, proc.tail()
        else:
            log = proc.log()
            assert "QoS policy file" in log and "match rules" in log, proc.tail()
        proc.stop(signal.SIGTERM, 2.0)
        sim.stop()
    o, i = got["opensm"], got["ibsm"]
    # The reference must show the policy at work, else this test could not fail.
    sls = {v[0] for v in o.values()}
    assert len(sls) >= 6, f"OpenSM's answers do not show the policy: {o}"
    diff = [f"{k}: opensm {o[k]} ibsm {i[k]}" for k in o if o[k] != i[k]]
    assert not diff, "PathRecords differ from OpenSM's:\n  " + "\n  ".join(diff)


def test_broken_policy_on_sighup_keeps_the_last_good_one(fabric, sm, sims, sm_procs, workdir):
    if sm.name != "ibsm":
        pytest.skip("ibsm's reload; OpenSM drops its policy instead")
    sim, proc, topo = run(sm, sims, sm_procs, workdir, fabric, "hup")
    before = answers(sim, topo, workdir, "hup-before")
    policy = workdir / "hup-qos-policy.conf"
    text = policy.read_text().replace("        sl: 2\n", "        sl: 2x\n", 1)
    line = text[:text.index("sl: 2x")].count("\n") + 1
    policy.write_text(text)
    proc.proc.send_signal(signal.SIGHUP)
    wait_for(lambda: "keeping the last good policy" in proc.log(), 20,
             "ibsm refusing the broken policy")
    log = proc.log()
    assert f"IBSM-2501: {policy}:{line}:" in log, proc.tail()
    wait_for(lambda: proc.count_up() >= 1, 5, "SM up")
    after = answers(sim, topo, workdir, "hup-after")
    assert after == before, f"answers changed after a refused policy:\n{before}\n{after}"
    proc.stop(signal.SIGTERM, 2.0)


# ---------------------------------------------------------------- qos-setup (ibsm only)

SETUP_A = [7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0]
SETUP_B = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 0, 0]
# opensm.conf's default qos_sl2vl (0-14, 7) masked to ibsim's 8 VLs: what the rest keep.
CLASS_SL2VL = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]


def setup_policy(storage_guid: int) -> str:
    return f"""port-groups
    port-group
        name: Storage
        port-guid: {storage_guid:#x}
    end-port-group
end-port-groups
qos-setup
    vlarb-tables
        vlarb-scope
            group: Storage
            vlarb-high: 0:8,1:16
            vlarb-low: 0:0,1:64,2:32
        end-vlarb-scope
        vlarb-scope
            across: Storage
            vlarb-low: 3:5
        end-vlarb-scope
    end-vlarb-tables
    sl2vl-tables
        sl2vl-scope
            group: Storage
            sl2vl-table: {",".join(map(str, SETUP_A))}
        end-sl2vl-scope
        sl2vl-scope
            across-to: Storage
            sl2vl-table: {",".join(map(str, SETUP_B))}
        end-sl2vl-scope
    end-sl2vl-tables
end-qos-setup
qos-levels
    qos-level
        name: DEFAULT
        sl: 0
    end-qos-level
end-qos-levels
"""


def test_qos_setup_programs_the_groups_ports(fabric, sm, sims, sm_procs, workdir):
    """OpenSM ignores qos-setup; ibsm programs it: `smpquery vlarb` and `sl2vl` on the
    group's port and on the switch port facing it show the scopes' tables, the other
    ports keep the class tables of opensm.conf."""
    if sm.name != "ibsm":
        pytest.skip("OpenSM parses qos-setup and ignores it")
    from test_qos import _starts_with, _vlarb

    sim = sims(fabric, "setup")
    topo0 = checks.discover(sim, fabric.judge)
    storage = topo0.by_desc["Hca4"]
    policy = workdir / "setup-qos-policy.conf"
    policy.write_text(setup_policy(storage.ports[1].guid))
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "setup-sm", once=False,
                     extra=["-Q", "-Y", str(policy)])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    topo = checks.discover(sim, fabric.judge)
    judge = fabric.judge
    wrong = []
    facing = 0
    for n, p, lid in checks.connected_ports(topo):
        peer = topo.nodes.get(p.peer_guid)
        if not n.is_switch:
            arb = _vlarb(sim, judge, lid, None)
            held = checks.read_sl2vl(sim, judge, lid).get(0)
            if n.desc == "Hca4":
                if not (_starts_with(arb.get("high", []), [(0, 8), (1, 16)])
                        and _starts_with(arb.get("low", []), [(0, 0), (1, 64), (2, 32)])):
                    wrong.append(f"Hca4 vlarb {arb}")
                if held != SETUP_A:
                    wrong.append(f"Hca4 sl2vl {held}")
            elif held != CLASS_SL2VL:
                wrong.append(f"{n.desc} sl2vl {held} (want the class table)")
            continue
        held = checks.read_sl2vl(sim, judge, lid, p.num)
        ins = [0] + [q.num for q in n.ports.values()
                     if q.num not in (0, p.num) and q.peer_guid is not None]
        tables = {i: held.get(i) for i in ins}
        if peer is not None and peer.desc == "Hca4":
            facing += 1
            arb = _vlarb(sim, judge, lid, p.num)
            if not _starts_with(arb.get("low", []), [(3, 5)]):
                wrong.append(f"{n.desc}/{p.num} (facing Hca4) vlarb low {arb.get('low')}")
            bad = {i: t for i, t in tables.items() if t != SETUP_B}
            if bad:
                wrong.append(f"{n.desc}/{p.num} (facing Hca4) sl2vl {bad}")
        else:
            bad = {i: t for i, t in tables.items() if t != CLASS_SL2VL}
            if bad:
                wrong.append(f"{n.desc}/{p.num} sl2vl {bad} (want the class table)")
    assert facing == 1, f"no switch port facing Hca4 found in {topo.nodes}"
    assert not wrong, "qos-setup not as the policy says:\n  " + "\n  ".join(wrong) + \
        f"\n{proc.tail()}"


# ------------------------------------------------- multicast groups' SL (ibsm only)

def _join_broadcast(cl: SaClient, pkey: int) -> int:
    """The SL the SA gives the IPoIB IPv4 broadcast group of `pkey` in a full join, as
    an IPoIB host reads it (IBA 15.2.5.17; RFC 4391 MGID)."""
    from test_multicast import JOIN_STATE, MGID, PORT_GID, Mcmr
    mgid = bytes.fromhex(f"ff12401b{pkey:04x}0000" + "00000000ffffffff")
    rec = Mcmr(mgid=mgid, port_gid=cl.gid, pkey=pkey, scope_join=1)
    r = cl.get(sac.ATTR_MCMEMBER_RECORD, MGID | PORT_GID | JOIN_STATE, rec.encode(),
               method=sac.SET)
    assert r is not None and r.status == 0, f"join of {mgid.hex()}: {r and hex(r.status)}"
    return Mcmr.decode(r.data[:56]).sl


def test_policy_decides_the_sl_of_partition_groups(fabric, sm, sims, sm_procs, workdir):
    """OpenSM leaves a partition's multicast groups on the partition's SL whatever the
    policy says; ibsm lets a P_Key-only rule (`ipoib, pkey 0x0002 : 7`) decide it, as it
    decides that partition's PathRecords, and follows the policy on SIGHUP."""
    if sm.name != "ibsm":
        pytest.skip("OpenSM keeps the partition's SL for multicast groups")
    sim, proc, topo = run(sm, sims, sm_procs, workdir, fabric, "mcsl")
    with SaClient(sim, "Hca2", workdir / "client-mcsl") as cl:
        assert _join_broadcast(cl, 0x8002) == 7, proc.tail()
        # No rule names the default partition: it keeps partitions.conf's SL.
        assert _join_broadcast(cl, 0xFFFF) == 0, proc.tail()
        assert "SL 7 from the QoS policy" in proc.log(), proc.tail()
        policy = workdir / "mcsl-qos-policy.conf"
        policy.write_text(policy.read_text().replace("ipoib, pkey 0x0002            : 7",
                                                     "ipoib, pkey 0x0002            : 6"))
        proc.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "SL 6 from the QoS policy" in proc.log(), 20, "the new policy's SL")
        wait_for(lambda: _join_broadcast(cl, 0x8002) == 6, 10, "the group on SL 6")
    proc.stop(signal.SIGTERM, 2.0)
