#!/usr/bin/env python3
"""Writes the SA fuzz seed corpus (tests/unit/sa/fuzz_corpus/): the requests real
clients send (saquery's masks, the kernel's IPoIB and rdma_cm joins and path
queries, ibacm, ServiceRecord and InformInfo registrations) and malformed MADs.
Addresses are those of the SA rig's fabric (sa_fixture.cpp): ibsim GUIDs, port
GUIDs 0x100001.., LIDs 1..8, the IPoIB broadcast group of the default partition.

    tests/unit/sa/make_fuzz_corpus.py tests/unit/sa/fuzz_corpus
"""
import os
import struct
import sys

GET, SET, GETTABLE, GETTRACETABLE, GETMULTI, DELETE = 0x01, 0x02, 0x12, 0x13, 0x14, 0x15
PREFIX = 0xFE80000000000000


def mad(method, attr, record=b"", mask=0, sm_key=0, attr_mod=0, tid=0x0000000112345678,
        rmpp=b"\0" * 12, attr_offset=0, base=1, mgmt_class=3, class_version=2, length=256):
    head = struct.pack(">BBBBHHQHHI", base, mgmt_class, class_version, method, 0, 0, tid, attr,
                       0, attr_mod)
    head += rmpp + struct.pack(">QHHQ", sm_key, attr_offset, 0, mask)
    body = (head + record)[:length]
    return body + b"\0" * (length - len(body))


def gid(guid, prefix=PREFIX):
    return struct.pack(">QQ", prefix, guid)


def mgid_ipv4(pkey=0xFFFF, scope=2, low=0xFFFFFFFF):
    return bytes([0xFF, 0x10 | scope, 0x40, 0x1B]) + struct.pack(">H", pkey) + b"\0" * 6 + \
        struct.pack(">I", low)


def mgid_ipv6(pkey=0xFFFF, scope=2, tail=b"\0" * 9 + b"\x01"):
    return bytes([0xFF, 0x10 | scope, 0x60, 0x1B]) + struct.pack(">H", pkey) + tail


def mcmr(mgid=b"\0" * 16, port=b"\0" * 16, qkey=0, mlid=0, mtu=0, tclass=0, pkey=0, rate=0,
         life=0, sl=0, flow=0, hop=0, scope=0, join=0, proxy=0):
    return mgid + port + struct.pack(">IHBBHBBIBBH", qkey, mlid, mtu, tclass, pkey, rate, life,
                                     sl << 28 | flow << 8 | hop, scope << 4 | join,
                                     0x01 if proxy else 0, 0) + b"\0" * 4


def bits(*ns):
    m = 0
    for n in ns:
        m |= 1 << n
    return m


def path(sid=0, dgid=b"\0" * 16, sgid=b"\0" * 16, dlid=0, slid=0, flow_hop_raw=0, tclass=0,
         reversible=0, numb=0, pkey=0, qos_sl=0, mtu=0, rate=0, life=0, pref=0):
    return struct.pack(">Q", sid) + dgid + sgid + struct.pack(
        ">HHIBBHHBBBB", dlid, slid, flow_hop_raw, tclass, (reversible << 7) | numb, pkey, qos_sl,
        mtu, rate, life, pref) + b"\0" * 6


def service(sid, sgid, pkey=0xFFFF, lease=0xFFFFFFFF, key=b"\0" * 16, name=b"", data=b""):
    name = (name + b"\0" * 64)[:64]
    data = (data + b"\0" * 64)[:64]
    return struct.pack(">Q", sid) + sgid + struct.pack(">HHI", pkey, 0, lease) + key + name + data


def seeds():
    ha, hb, hx2 = 0x100001, 0x100003, 0x10000A
    out = {}
    # saquery (all GetTable but ClassPortInfo), see docs and saquery.c.
    out["saquery-cpi"] = mad(GET, 0x0001)
    out["saquery-nr-all"] = mad(GETTABLE, 0x0011)
    out["saquery-nr-lid"] = mad(GETTABLE, 0x0011, struct.pack(">H", 3), mask=1)
    out["saquery-pir-lid-port"] = mad(GETTABLE, 0x0012, struct.pack(">HB", 3, 1), mask=3)
    # saquery -s: CapabilityMask match (attribute modifier bit 31), IsSM.
    out["saquery-s-issm"] = mad(GETTABLE, 0x0012, b"\0" * 4 + b"\0" * 16 + struct.pack(">I", 2),
                                mask=bits(7), attr_mod=0x80000000)
    out["saquery-sl2vl"] = mad(GETTABLE, 0x0013)
    out["saquery-swir-lid"] = mad(GETTABLE, 0x0014, struct.pack(">H", 1), mask=1)
    out["saquery-lftr-lid-block"] = mad(GETTABLE, 0x0015, struct.pack(">HH", 1, 0), mask=3)
    out["saquery-mftr"] = mad(GETTABLE, 0x0017)
    out["saquery-smir"] = mad(GETTABLE, 0x0018)
    out["saquery-lr-all"] = mad(GETTABLE, 0x0020)
    out["saquery-lr-from"] = mad(GETTABLE, 0x0020, struct.pack(">HB", 1, 3), mask=3)
    out["saquery-gir"] = mad(GETTABLE, 0x0030)
    out["saquery-sr"] = mad(GETTABLE, 0x0031)
    out["saquery-pktr-trusted"] = mad(GETTABLE, 0x0033, sm_key=1)
    out["saquery-pr-world"] = mad(GETTABLE, 0x0035)
    out["saquery-pr-src-to-dst"] = mad(GETTABLE, 0x0035, path(dlid=4, slid=3, numb=0x7F),
                                       mask=bits(4, 5, 12))
    out["saquery-pr-sgid-to-dgid"] = mad(GETTABLE, 0x0035, path(dgid=gid(hb), sgid=gid(ha),
                                                                numb=0x7F), mask=bits(2, 3, 12))
    out["saquery-vlar"] = mad(GETTABLE, 0x0036)
    out["saquery-iir"] = mad(GETTABLE, 0x00F3)
    out["saquery-g"] = mad(GETTABLE, 0x0038)
    out["saquery-mcmr-mgid"] = mad(GETTABLE, 0x0038, mcmr(mgid=mgid_ipv4()), mask=1)
    out["saquery-m-trusted"] = mad(GETTABLE, 0x0038, sm_key=1)
    # smpquery -G / ibping -G: PathRecord Get SGID+DGID.
    out["smpquery-G-pr"] = mad(GET, 0x0035, path(dgid=gid(hb), sgid=gid(ha)), mask=bits(2, 3))
    # ibqueryerrors: one reversible path per destination from the local SGID.
    out["ibqueryerrors-pr"] = mad(GETTABLE, 0x0035, path(sgid=gid(ha), reversible=1, numb=1),
                                  mask=bits(3, 11, 12))
    # rdma_cm route resolution (kernel cma_query_ib_route), IPv4 port space.
    out["rdma-cm-pr"] = mad(GET, 0x0035, path(sid=0x0000000001060000 | 18515, dgid=gid(hb),
                                              sgid=gid(ha), tclass=0, reversible=1, numb=1,
                                              pkey=0xFFFF),
                            mask=bits(0, 1, 2, 3, 10, 11, 12, 13))
    # ibacm: path with QoS class and MTU/rate selectors.
    out["ibacm-pr"] = mad(GET, 0x0035, path(dgid=gid(hb), sgid=gid(ha), reversible=1, numb=1,
                                            pkey=0xFFFF, mtu=0x84, rate=0x83),
                          mask=bits(2, 3, 11, 12, 13, 16, 17, 18, 19))
    # IPoIB: broadcast join (can never create), then the IPv4 all-hosts and IPv6
    # all-nodes groups with full create masks, a send-only join and a leave.
    out["ipoib-bcast-join"] = mad(SET, 0x0038, mcmr(mgid=mgid_ipv4(), port=gid(ha), pkey=0xFFFF,
                                                    join=1), mask=bits(0, 1, 7, 16))
    create = bits(0, 1, 2, 4, 5, 6, 7, 8, 9, 12, 13, 14, 16)
    out["ipoib-allhosts-join"] = mad(SET, 0x0038, mcmr(mgid=mgid_ipv4(low=1), port=gid(ha),
                                                       qkey=0x0B1B, mtu=0x84, pkey=0xFFFF,
                                                       rate=0x83, join=1), mask=create)
    out["ipoib-ipv6-allnodes-join"] = mad(SET, 0x0038, mcmr(mgid=mgid_ipv6(), port=gid(hb),
                                                            qkey=0x0B1B, mtu=0x84, pkey=0xFFFF,
                                                            rate=0x83, join=1), mask=create)
    out["ipoib-sendonly-join"] = mad(SET, 0x0038, mcmr(mgid=mgid_ipv4(low=0xE0000005),
                                                       port=gid(ha), qkey=0x0B1B, mtu=0x84,
                                                       pkey=0xFFFF, rate=0x83, join=8),
                                     mask=create)
    out["ipoib-leave"] = mad(DELETE, 0x0038, mcmr(mgid=mgid_ipv4(), port=gid(ha), join=1),
                             mask=bits(0, 1, 16))
    out["ipoib-bcast-get"] = mad(GET, 0x0038, mcmr(mgid=mgid_ipv4(), port=gid(ha), pkey=0xFFFF),
                                 mask=bits(0, 1, 7))
    # rdma_cm multicast join (cma_join_ib_multicast) and a proxy join.
    out["rdma-cm-mc-join"] = mad(SET, 0x0038, mcmr(mgid=mgid_ipv4(low=0xE0010203), port=gid(hb),
                                                   qkey=0x01234567, pkey=0xFFFF, join=1),
                                 mask=bits(0, 1, 2, 6, 7, 12, 13, 16))
    out["proxy-join"] = mad(SET, 0x0038, mcmr(mgid=mgid_ipv4(), port=gid(hx2), pkey=0xFFFF,
                                              join=1, proxy=1), mask=bits(0, 1, 7, 16, 17))
    # ibacm's own groups: site-local, full create mask, Q_Key 0x80010000.
    out["ibacm-mc-create"] = mad(SET, 0x0038, mcmr(
        mgid=bytes([0xFF, 0x15, 0x40, 0x01, 0xFF, 0xFF, 0, 0x83, 0x84]) + b"\0" * 7,
        port=gid(ha), qkey=0x80010000, mtu=0x84, pkey=0xFFFF, rate=0x83, hop=0xFF, scope=5,
        join=1), mask=create | bits(15))
    # Get with mask 0 (OpenSM: TOO_MANY_RECORDS once there are two groups).
    out["mcmr-get-mask0"] = mad(GET, 0x0038)
    # ServiceRecord: register, look up by ServiceID (rdma_cm AF_IB), delete.
    sr = service(0x1000000000000001, gid(ha), name=b"ibsm-fuzz-service", data=b"\x01\x02\x03")
    out["sr-register"] = mad(SET, 0x0031, sr, mask=bits(0, 1, 2, 4, 6))
    out["sr-get-by-id"] = mad(GET, 0x0031, sr, mask=bits(0))
    out["sr-delete"] = mad(DELETE, 0x0031, sr, mask=bits(0, 1))
    # InformInfo: subscribe to trap 64 (GID in service) for all LIDs; InformInfoRecord.
    inform = b"\0" * 16 + struct.pack(">HHHBBHHI I", 0xFFFF, 0, 0, 1, 1, 0xFFFF, 64,
                                      (1 << 8) | 18, 0xFFFFFF)
    out["informinfo-subscribe"] = mad(SET, 0x0003, inform)
    # GuidInfoRecord: alias GUID set.
    out["gir-set"] = mad(SET, 0x0030, struct.pack(">HBB", 3, 0, 0) + b"\0" * 4 +
                         struct.pack(">8Q", 0, 0x0002C90300000001, 0, 0, 0, 0, 0, 0),
                         mask=bits(0, 1, 5), sm_key=1)
    # MultiPathRecord GetMulti: one SGID, one DGID.
    mpr = struct.pack(">IBBHHBBBBBBB", 0, 0, (1 << 7) | 2, 0xFFFF, 0, 0, 0, 0, 0, 0, 1, 1) + \
        b"\0" * 7 + gid(ha) + gid(hb)
    out["multipath-getmulti"] = mad(GETMULTI, 0x003A, mpr, mask=bits(5, 6, 7, 19, 20))
    out["tracerecord-gettracetable"] = mad(GETTRACETABLE, 0x0039, path(dgid=gid(hb), sgid=gid(ha)),
                                           mask=bits(2, 3))
    # Malformed and hostile.
    out["bad-short-40"] = mad(GET, 0x0001, length=40)
    out["bad-header-only"] = mad(GETTABLE, 0x0038, length=56)
    out["bad-class-version-1"] = mad(GET, 0x0001, class_version=1)
    out["bad-class-version-ff"] = mad(GETTABLE, 0x0011, class_version=0xFF)
    out["bad-base-version-2"] = mad(GET, 0x0001, base=2)
    out["bad-class-dr-smp"] = mad(GET, 0x0011, mgmt_class=0x81)
    out["bad-response-in"] = mad(0x81, 0x0011)
    out["bad-report-in"] = mad(0x06, 0x0002)
    out["bad-unknown-attr"] = mad(GET, 0x00EE)
    out["bad-unserved-sar"] = mad(GET, 0x003B)
    out["bad-method-send"] = mad(0x03, 0x0011)
    out["bad-wrong-smkey"] = mad(GETTABLE, 0x0011, sm_key=2)
    out["bad-rmpp-segment2"] = mad(GETTABLE, 0x0035, rmpp=bytes([1, 1, 0x71, 0]) +
                                   struct.pack(">II", 2, 400))
    out["bad-rmpp-abort"] = mad(GET, 0x0038, rmpp=bytes([1, 4, 0x01, 0xFF]) + b"\0" * 8)
    out["bad-attr-offset-ffff"] = mad(GETTABLE, 0x0011, attr_offset=0xFFFF, mask=1,
                                      record=struct.pack(">H", 3))
    out["bad-overlong-1024"] = mad(GETTABLE, 0x0038, length=1024)[:256] + b"\xff" * 768
    out["bad-all-ff"] = b"\x01\x03\x02\x12" + b"\xff" * 252
    out["bad-mcmr-mask-all"] = mad(GETTABLE, 0x0038, bytes(range(56)), mask=(1 << 64) - 1)
    out["bad-mcmr-mtu-sel-invalid"] = mad(GET, 0x0038, mcmr(mtu=0x87), mask=bits(4, 5))
    out["bad-pr-all-mask"] = mad(GETTABLE, 0x0035, path(), mask=(1 << 64) - 1)
    out["bad-sr-delete-unknown"] = mad(DELETE, 0x0031, service(0xDEAD, gid(hb)), mask=bits(0, 1))
    out["bad-informinfo-subscribe-2"] = mad(SET, 0x0003, inform[:23] + b"\x02" + inform[24:])
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(sys.argv[1], name + ".mad"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
