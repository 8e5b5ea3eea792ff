"""SA resources per port are bounded (issue 38, part 6; docs/sa.md "Limits").

One host (a raw SA client, sa_client.py's pump) sends 10 000 ServiceRecord Sets, each
for a new ServiceID of its own port, pipelined (16 in flight). With the default
sa_max_service_records_per_port (1000) the first 1000 are registered (status 0) and
every later one is refused with ERR_NO_RESOURCES (0x0100), as OpenSM answers a record
it cannot allocate. The SM keeps answering everyone: a ServiceRecord Set from another
host succeeds, saquery from a third host gets its NodeRecords, and the flooding host
may still re-register (update) one of its records and delete one, after which one
more new record fits. Before the limits, all 10 000 were registered (status 0).

Multicast: one host's 2000 MCMemberRecord joins, each creating a group of its own,
stop at sa_max_mcast_groups_per_port (256) with ERR_NO_RESOURCES; another host still
joins one of them and creates a group of its own. Before the limits, one host took
MLIDs until the switches' multicast tables were full.

The time the 10 000 Sets take is printed (`-s` shows it).
"""

from __future__ import annotations

import os
import re
import time
import urllib.request
from pathlib import Path

import pytest

import sa_client as sac
from ibsimlib import Ibsm, SMProcess, Simulator, free_tcp_port, run_tool, wait_for
from sa_client import SaClient

import sys
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "fabrics"))
import gen_fabric  # noqa: E402

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
SETS = 10_000
LIMIT = 1000  # sa_max_service_records_per_port's default
ST_NO_RESOURCES = 0x0100
SM_NODE, FLOODER, OTHER, JUDGE = "h0_0", "h1_1", "h2_2", "h3_3"
SR_MASK = sac.SR_SID | sac.SR_SGID | sac.SR_PKEY | sac.SR_LEASE | sac.SR_NAME
SR_RID = sac.SR_SID | sac.SR_SGID | sac.SR_PKEY
GROUPS_LIMIT = 256  # sa_max_mcast_groups_per_port's default
JOINS = 2000
# MCMemberRecord ComponentMask (IBA 15.2.5.17): MGID, PortGID, Q_Key, TClass, P_Key, SL,
# FlowLabel, JoinState: what a create needs (OpenSM's REQUIRED_MC_CREATE_COMP_MASK).
MC_CREATE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 6) | (1 << 7) | (1 << 12) | (1 << 13) | (1 << 16)


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
    sim = Simulator(net, workdir / "sim", "salimits")
    sim.start()
    port = free_tcp_port()
    proc = SMProcess(sm, sim, SM_NODE, workdir / "sm", once=False,
                     extra=["--metrics-listen", f"127.0.0.1:{port}"])
    proc.metrics_url = f"http://127.0.0.1:{port}/metrics"
    try:
        proc.start().wait_up(UP_TIMEOUT)
        yield sim, proc
    finally:
        proc.kill()
        sim.stop()


def refused_metric(proc, resource: str) -> int | None:
    try:
        with urllib.request.urlopen(proc.metrics_url, timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return None
    m = re.search(rf'^ibsm_sa_requests_refused_total{{resource="{resource}"}} (\d+)$', text, re.M)
    return int(m.group(1)) if m else None


def record(cl: SaClient, sid: int, name: str) -> bytes:
    return sac.ServiceRecord(service_id=sid, gid=cl.gid, pkey=0xFFFF, lease=0xFFFFFFFF,
                             name=name).encode()


def set_mad(cl: SaClient, sid: int, name: str = "flood") -> bytes:
    return sac.SaMad(method=sac.SET, attr_id=sac.ATTR_SERVICE_RECORD, comp_mask=SR_MASK,
                     data=record(cl, sid, name)).encode()


def test_ten_thousand_service_records_from_one_port_stop_at_the_bound(ibsm_fabric, workdir):
    sim, proc = ibsm_fabric
    with SaClient(sim, FLOODER, workdir / "flooder") as flooder, \
            SaClient(sim, OTHER, workdir / "other") as other:
        base = 0x1000_0000_0000_0000
        t0 = time.monotonic()
        statuses = flooder.burst([set_mad(flooder, base + i) for i in range(SETS)])
        took = time.monotonic() - t0
        ok = sum(1 for s in statuses if s == 0)
        refused = sum(1 for s in statuses if s == ST_NO_RESOURCES)
        lost = sum(1 for s in statuses if s is None)
        print(f"{SETS} ServiceRecord Sets from one port in {took:.1f} s "
              f"({SETS / took:.0f}/s): {ok} registered, {refused} ERR_NO_RESOURCES, "
              f"{lost} unanswered")
        assert proc.alive(), proc.tail()
        assert lost == 0, f"{lost} Sets unanswered"
        assert statuses[:LIMIT] == [0] * LIMIT, \
            f"the first {LIMIT} are registered: {sorted(set(statuses[:LIMIT]), key=str)}"
        assert statuses[LIMIT:] == [ST_NO_RESOURCES] * (SETS - LIMIT), \
            (f"every Set past the bound is refused with 0x0100; got {ok} registered, "
             f"{refused} refused, other statuses "
             f"{sorted({s for s in statuses[LIMIT:] if s != ST_NO_RESOURCES}, key=str)}")
        assert "IBSM-7007" in proc.log(), "the refusal is logged with its ID"
        assert f"0x{flooder.port_guid:016x}" in proc.log(), "naming the port"
        # ... and counted where Prometheus sees it (published with the next sweep).
        wait_for(lambda: refused_metric(proc, "service_records") == SETS - LIMIT, 30,
                 f"ibsm_sa_requests_refused_total{{resource=\"service_records\"}} {SETS - LIMIT}")

        # The SM keeps answering others: another port registers ...
        r = other.get(sac.ATTR_SERVICE_RECORD, SR_MASK, record(other, base, "other"),
                      method=sac.SET)
        assert r is not None and r.status == 0, f"Set from another port: {r}"
        # ... and saquery from a third host is answered.
        cp = run_tool(sim, JUDGE, ["saquery", "-t", "2000", "NR"], check=False, timeout=30)
        assert cp.returncode == 0 and "NodeRecord" in cp.stdout, cp.stderr[-500:]

        # An update of a registered record is not a new one; a delete frees a slot.
        r = flooder.get(sac.ATTR_SERVICE_RECORD, SR_MASK, record(flooder, base + 7, "renamed"),
                        method=sac.SET)
        assert r is not None and r.status == 0, f"update at the bound: {r}"
        r = flooder.get(sac.ATTR_SERVICE_RECORD, SR_RID, record(flooder, base + 8, ""),
                        method=sac.DELETE)
        assert r is not None and r.status == 0, f"delete: {r}"
        r = flooder.get(sac.ATTR_SERVICE_RECORD, SR_MASK, record(flooder, base + SETS, "again"),
                        method=sac.SET)
        assert r is not None and r.status == 0, f"a new record after the delete: {r}"
        r = flooder.get(sac.ATTR_SERVICE_RECORD, SR_MASK, record(flooder, base + SETS + 1, "x"),
                        method=sac.SET)
        assert r is not None and r.status == ST_NO_RESOURCES, f"and then the bound again: {r}"
    assert proc.alive(), proc.tail()


def join_mad(cl: SaClient, n: int) -> bytes:
    rec = bytearray(56)
    rec[0:16] = bytes([0xff, 0x15, 0x40, 0x01, 0xff, 0xff]) + bytes(6) + n.to_bytes(4, "big")
    rec[16:32] = cl.gid
    rec[32:36] = (0x80010000).to_bytes(4, "big")  # Q_Key as rdma_cm sets it
    rec[40:42] = (0xFFFF).to_bytes(2, "big")
    rec[48] = 0x01  # JoinState: full member
    return sac.SaMad(method=sac.SET, attr_id=sac.ATTR_MCMEMBER_RECORD, comp_mask=MC_CREATE,
                     data=bytes(rec)).encode()


def test_groups_created_by_one_port_stop_at_the_bound(ibsm_fabric, workdir):
    sim, proc = ibsm_fabric
    with SaClient(sim, FLOODER, workdir / "flooder") as flooder, \
            SaClient(sim, OTHER, workdir / "other") as other:
        t0 = time.monotonic()
        statuses = flooder.burst([join_mad(flooder, i) for i in range(JOINS)])
        took = time.monotonic() - t0
        ok = sum(1 for s in statuses if s == 0)
        print(f"{JOINS} creating joins from one port in {took:.1f} s: {ok} created, "
              f"{sum(1 for s in statuses if s == ST_NO_RESOURCES)} ERR_NO_RESOURCES, "
              f"{sum(1 for s in statuses if s is None)} unanswered")
        assert proc.alive(), proc.tail()
        assert statuses[:GROUPS_LIMIT] == [0] * GROUPS_LIMIT, \
            f"the first {GROUPS_LIMIT} create their group: {sorted(set(statuses[:GROUPS_LIMIT]), key=str)}"
        assert statuses[GROUPS_LIMIT:] == [ST_NO_RESOURCES] * (JOINS - GROUPS_LIMIT), \
            (f"every create past the bound is refused with 0x0100: {ok} created, other statuses "
             f"{sorted({s for s in statuses[GROUPS_LIMIT:] if s != ST_NO_RESOURCES}, key=str)}")
        assert "IBSM-7007" in proc.log()
        # Another port joins one of them and creates one of its own.
        for n in (5, JOINS + 1):
            r = other.request(sac.SaMad.decode(join_mad(other, n)))
            assert r is not None and r.status == 0, f"join of group {n} from another port: {r}"
    assert proc.alive(), proc.tail()
