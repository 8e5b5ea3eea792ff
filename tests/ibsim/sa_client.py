#!/usr/bin/python3
"""A raw SA client for what saquery cannot send (docs/testing.md).

Two halves:

* the *pump* (``sa_client.py serve``): a process attached to one node of an ibsim
  fabric (run under LD_PRELOAD=libumad2sim.so with SIM_HOST, like any judge) that
  moves SA MADs through libibumad (ctypes over libibumad.so.3) and nothing else.
  It registers class 0x03 version 2 before anything can reach it (umad2sim kills a
  process that receives a class it has no agent for), and, with ``--issm``, the SMP
  classes too before it opens the port's issm device: ibsim delivers requests to
  QP1 of a port (the SA's Reports) only to the client holding IsSM there, and an SM
  seeing a new IsSM port asks it for SMInfo, which the pump answers as a NOTACTIVE
  SM.  It puts its own TIDs on the requests and matches responses on the low 32
  bits (umad2sim and ibsim rewrite the upper half, as the kernel does).  Reports
  that arrive are answered with ReportResp and queued for the test.  It speaks JSON
  lines on stdin/stdout.

* the *test side* (``SaClient`` and the record codecs below): starts a pump, sends
  requests, and encodes/decodes SA records (IBA 15.2.5).  Nothing here loads
  libibumad.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
import select
import struct
import subprocess
import sys
import time
from pathlib import Path

# --------------------------------------------------------------------------- constants

CLASS_SA = 0x03
CLASS_SMI_LID = 0x01
CLASS_SMI_DR = 0x81
CLASS_PERF = 0x04

GET, SET, REPORT, GET_TABLE, GET_TRACE_TABLE, GET_MULTI, DELETE = 0x01, 0x02, 0x06, 0x12, 0x13, 0x14, 0x15
GET_RESP, REPORT_RESP, GET_TABLE_RESP, GET_TRACE_TABLE_RESP, GET_MULTI_RESP, DELETE_RESP = (
    0x81, 0x86, 0x92, 0x93, 0x94, 0x95)
RMPP_ACTIVE_FIRST_LAST = 0x07

ATTR_CLASS_PORT_INFO = 0x0001
ATTR_NOTICE = 0x0002
ATTR_INFORM_INFO = 0x0003
ATTR_NODE_RECORD = 0x0011
ATTR_SERVICE_RECORD = 0x0031
ATTR_PATH_RECORD = 0x0035
ATTR_MCMEMBER_RECORD = 0x0038
ATTR_TRACE_RECORD = 0x0039
ATTR_MULTIPATH_RECORD = 0x003A
ATTR_SERVICE_ASSOCIATION_RECORD = 0x003B
ATTR_INFORM_INFO_RECORD = 0x00F3
ATTR_SMINFO = 0x0020

ST_OK = 0x0000
ST_NO_RECORDS = 0x0300
ST_TOO_MANY = 0x0400
ST_REQ_INVALID = 0x0200
ST_INSUFFICIENT = 0x0600

QKEY_GSI = 0x80010000
HDR = 56  # SA header

# PathRecord component mask bits (IBA 15.2.5.16)
PR_SERVICE_ID = 0x3  # bits 0 and 1 (both halves)
PR_DGID, PR_SGID, PR_DLID, PR_SLID = 1 << 2, 1 << 3, 1 << 4, 1 << 5
PR_TCLASS, PR_REVERSIBLE, PR_NUMB_PATH, PR_PKEY, PR_QOS_CLASS, PR_SL = (
    1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15)

# The masks real clients put on a PathRecord Get (Linux ib_sa users, libibmad)
CLIENT_PR_MASKS = {
    "libibmad": PR_SGID | PR_DGID,                              # smpquery -G & co.
    "ipoib": PR_DGID | PR_SGID | PR_NUMB_PATH | PR_TCLASS | PR_PKEY,
    "rdma_cm_ipv4": (PR_SERVICE_ID | PR_DGID | PR_SGID | PR_PKEY | PR_NUMB_PATH
                     | PR_REVERSIBLE | PR_QOS_CLASS),
    "rdma_cm_ib": (PR_SERVICE_ID | PR_DGID | PR_SGID | PR_PKEY | PR_NUMB_PATH
                   | PR_REVERSIBLE | PR_TCLASS),
}


# --------------------------------------------------------------------------- SA header

@dataclasses.dataclass
class SaMad:
    method: int
    attr_id: int
    status: int = 0
    tid: int = 0
    attr_mod: int = 0
    sm_key: int = 0
    attr_offset: int = 0
    comp_mask: int = 0
    data: bytes = b""
    mgmt_class: int = CLASS_SA
    class_version: int = 2
    rmpp_flags: int = 0
    length: int = 0  # bytes received (responses)

    def encode(self, size: int = 256) -> bytes:
        b = bytearray(max(size, HDR + len(self.data)))
        struct.pack_into(">BBBBHHQHHI", b, 0, 1, self.mgmt_class, self.class_version, self.method,
                         self.status, 0, self.tid, self.attr_id, 0, self.attr_mod)
        if self.rmpp_flags:
            # a one-segment RMPP message (what a client's kernel sends for GetMulti): version 1,
            # DATA, flags, segment 1, PayloadLength = SA header tail + data
            b[24], b[25], b[26] = 1, 1, self.rmpp_flags
            struct.pack_into(">II", b, 28, 1, 20 + len(self.data))
        struct.pack_into(">QHHQ", b, 36, self.sm_key, self.attr_offset, 0, self.comp_mask)
        b[HDR:HDR + len(self.data)] = self.data
        return bytes(b)

    @classmethod
    def decode(cls, b: bytes) -> "SaMad":
        if len(b) < HDR:
            raise ValueError(f"SA MAD of {len(b)} bytes")
        _, mclass, cver, method, status, _, tid, attr, _, amod = struct.unpack_from(">BBBBHHQHHI", b, 0)
        sm_key, aoff, _, cmask = struct.unpack_from(">QHHQ", b, 36)
        return cls(method=method, attr_id=attr, status=status, tid=tid, attr_mod=amod, sm_key=sm_key,
                   attr_offset=aoff, comp_mask=cmask, data=bytes(b[HDR:]), mgmt_class=mclass,
                   class_version=cver, rmpp_flags=b[26], length=len(b))

    def records(self) -> list[bytes]:
        """The records a response carries: (length - 56) / (AttributeOffset * 8), as saquery counts."""
        size = self.attr_offset * 8
        if size == 0:
            return []
        n = (self.length - HDR) // size
        return [self.data[i * size:(i + 1) * size] for i in range(n)]


# --------------------------------------------------------------------------- GIDs

def gid_bytes(prefix: int, guid: int) -> bytes:
    return struct.pack(">QQ", prefix, guid)


def gid_str(b: bytes) -> str:
    return str(ipaddress.IPv6Address(bytes(b[:16])))


# --------------------------------------------------------------------------- records

@dataclasses.dataclass
class PathRecord:
    service_id: int = 0
    dgid: bytes = bytes(16)
    sgid: bytes = bytes(16)
    dlid: int = 0
    slid: int = 0
    raw_traffic: int = 0
    flow_label: int = 0
    hop_limit: int = 0
    tclass: int = 0
    reversible: int = 0
    numb_path: int = 0
    pkey: int = 0
    qos_class: int = 0
    sl: int = 0
    mtu: int = 0      # selector in bits 7-6
    rate: int = 0     # selector in bits 7-6
    pkt_life: int = 0  # selector in bits 7-6
    preference: int = 0

    def encode(self) -> bytes:
        b = bytearray(64)
        struct.pack_into(">Q", b, 0, self.service_id)
        b[8:24], b[24:40] = self.dgid, self.sgid
        struct.pack_into(">HHI", b, 40, self.dlid, self.slid,
                         (self.raw_traffic << 31) | (self.flow_label << 8) | self.hop_limit)
        b[48] = self.tclass
        b[49] = (self.reversible << 7) | self.numb_path
        struct.pack_into(">HH", b, 50, self.pkey, (self.qos_class << 4) | self.sl)
        b[54], b[55], b[56], b[57] = self.mtu, self.rate, self.pkt_life, self.preference
        return bytes(b)

    @classmethod
    def decode(cls, b: bytes) -> "PathRecord":
        sid, = struct.unpack_from(">Q", b, 0)
        dlid, slid, w = struct.unpack_from(">HHI", b, 40)
        pkey, qs = struct.unpack_from(">HH", b, 50)
        return cls(sid, bytes(b[8:24]), bytes(b[24:40]), dlid, slid, w >> 31, (w >> 8) & 0xFFFFF,
                   w & 0xFF, b[48], b[49] >> 7, b[49] & 0x7F, pkey, qs >> 4, qs & 0xF, b[54], b[55],
                   b[56], b[57])


@dataclasses.dataclass
class TraceRecord:
    gid_prefix: int
    id_generation: int
    node_type: int
    node_id: int
    chassis_id: int
    entry_port_id: int
    exit_port_id: int
    entry_port: int
    exit_port: int

    @classmethod
    def decode(cls, b: bytes) -> "TraceRecord":
        prefix, gen = struct.unpack_from(">QH", b, 0)
        node, chassis, entry_id, exit_id = struct.unpack_from(">QQQQ", b, 12)
        return cls(prefix, gen, b[11], node, chassis, entry_id, exit_id, b[44], b[45])


# MultiPathRecord mask bits (IBA 15.2.5.21)
MPR_REVERSIBLE, MPR_NUMB_PATH, MPR_SGID_COUNT, MPR_DGID_COUNT, MPR_GIDS = (
    1 << 5, 1 << 6, 1 << 19, 1 << 20, 1 << 22)


def multipath_query(sgids: list[bytes], dgids: list[bytes], numb_path: int = 0,
                    reversible: int = 1) -> bytes:
    b = bytearray(24 + 16 * (len(sgids) + len(dgids)))
    b[5] = (reversible << 7) | numb_path
    b[15], b[16] = len(sgids), len(dgids)
    for i, g in enumerate(sgids + dgids):
        b[24 + 16 * i:40 + 16 * i] = g
    return bytes(b)


@dataclasses.dataclass
class NodeRecord:
    lid: int
    node_type: int
    num_ports: int
    sys_guid: int
    node_guid: int
    port_guid: int
    port_num: int
    desc: str

    @classmethod
    def decode(cls, b: bytes) -> "NodeRecord":
        lid, = struct.unpack_from(">H", b, 0)
        sysg, nodeg, portg = struct.unpack_from(">QQQ", b, 8)
        return cls(lid, b[6], b[7], sysg, nodeg, portg, b[40],
                   bytes(b[44:108]).split(b"\0")[0].decode(errors="replace"))


def node_record_query(lid: int) -> bytes:
    b = bytearray(112)
    struct.pack_into(">H", b, 0, lid)
    return bytes(b)


# ServiceRecord (176 bytes): mask bits 0 SID, 1 SGID, 2 P_Key, 4 Lease, 5 Key, 6 Name, 7-22 Data8,
# 23-30 Data16, 31-34 Data32, 35-36 Data64.
SR_SID, SR_SGID, SR_PKEY, SR_LEASE, SR_KEY, SR_NAME = 1, 2, 4, 16, 32, 64
SR_DATA_ALL = sum(1 << b for b in range(7, 37))


@dataclasses.dataclass
class ServiceRecord:
    service_id: int = 0
    gid: bytes = bytes(16)
    pkey: int = 0
    lease: int = 0
    key: bytes = bytes(16)
    name: str = ""
    data8: bytes = bytes(16)
    data16: tuple = (0,) * 8
    data32: tuple = (0,) * 4
    data64: tuple = (0,) * 2

    def encode(self) -> bytes:
        b = bytearray(176)
        struct.pack_into(">Q", b, 0, self.service_id)
        b[8:24] = self.gid
        struct.pack_into(">HHI", b, 24, self.pkey, 0, self.lease)
        b[32:48] = self.key
        n = self.name.encode()[:64]
        b[48:48 + len(n)] = n
        b[112:128] = self.data8
        struct.pack_into(">8H4I2Q", b, 128, *self.data16, *self.data32, *self.data64)
        return bytes(b)

    @classmethod
    def decode(cls, b: bytes) -> "ServiceRecord":
        sid, = struct.unpack_from(">Q", b, 0)
        pkey, _, lease = struct.unpack_from(">HHI", b, 24)
        v = struct.unpack_from(">8H4I2Q", b, 128)
        return cls(sid, bytes(b[8:24]), pkey, lease, bytes(b[32:48]),
                   bytes(b[48:112]).split(b"\0")[0].decode(errors="replace"), bytes(b[112:128]),
                   tuple(v[0:8]), tuple(v[8:12]), tuple(v[12:14]))


@dataclasses.dataclass
class InformInfo:
    gid: bytes = bytes(16)
    lid_begin: int = 0xFFFF  # 0xFFFF: all LIDs
    lid_end: int = 0
    is_generic: int = 1
    subscribe: int = 1
    type: int = 0xFFFF        # all types
    trap_number: int = 0xFFFF  # all traps
    qpn: int = 0
    resp_time: int = 0
    producer: int = 0xFFFFFF  # all producers

    def encode(self) -> bytes:
        b = bytearray(40)
        b[0:16] = self.gid
        struct.pack_into(">HHHBBHHI", b, 16, self.lid_begin, self.lid_end, 0, self.is_generic,
                         self.subscribe, self.type, self.trap_number,
                         (self.qpn << 8) | (self.resp_time & 0x1F))
        struct.pack_into(">I", b, 32, self.producer & 0xFFFFFF)
        return bytes(b)

    @classmethod
    def decode(cls, b: bytes) -> "InformInfo":
        lb, le, _, gen, sub, typ, trap, qw = struct.unpack_from(">HHHBBHHI", b, 16)
        prod, = struct.unpack_from(">I", b, 32)
        return cls(bytes(b[0:16]), lb, le, gen, sub, typ, trap, qw >> 8, qw & 0x1F, prod & 0xFFFFFF)


@dataclasses.dataclass
class Notice:
    is_generic: int
    type: int
    producer: int
    trap_number: int
    issuer_lid: int
    toggle: int
    count: int
    details: bytes   # 54 bytes
    issuer_gid: bytes

    @classmethod
    def decode(cls, b: bytes) -> "Notice":
        w0, trap, ilid, tc = struct.unpack_from(">IHHH", b, 0)
        return cls(w0 >> 31, (w0 >> 24) & 0x7F, w0 & 0xFFFFFF, trap, ilid, tc >> 15, tc & 0x7FFF,
                   bytes(b[10:64]), bytes(b[64:80]))

    @property
    def gid_in_details(self) -> bytes:
        """Traps 64-67 carry a GID at DataDetails offset 6."""
        return self.details[6:22]

    @property
    def lid_in_details(self) -> int:
        """Trap 128 (link state change) carries the reporting switch's LID first."""
        return struct.unpack_from(">H", self.details, 0)[0]


# --------------------------------------------------------------------------- test side

class PumpError(AssertionError):
    pass


class SaClient:
    """A pump process on one node of a simulated fabric, driven over JSON lines."""

    def __init__(self, sim, node: str, workdir: Path, issm: bool = False, log: Path | None = None,
                 perf: bool = False):
        self.sim, self.node = sim, node
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = sim.env(node)  # LD_PRELOAD=umad2sim, SIM_HOST; never SIM_SET_ISSM (see module doc)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        argv = ["/usr/bin/python3", str(Path(__file__).resolve()), "serve"] + (["--issm"] if issm else [])
        argv += ["--perf"] if perf else []
        self.err_path = log or self.workdir / f"pump-{node}.err"
        self._err = open(self.err_path, "wb")  # the pump exits on EOF of stdin: when we go
        self.proc = subprocess.Popen(argv, cwd=self.workdir, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._err, start_new_session=True)
        self.info = self._read(20.0)
        if "error" in self.info:
            raise PumpError(f"SA client on {node}: {self.info['error']}")
        self.lid: int = self.info["lid"]
        self.sm_lid: int = self.info["sm_lid"]
        self.port_guid: int = self.info["port_guid"]
        self.gid_prefix: int = self.info["gid_prefix"]

    @property
    def gid(self) -> bytes:
        return gid_bytes(self.gid_prefix, self.port_guid)

    def _read(self, timeout: float) -> dict:
        assert self.proc.stdout is not None
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            raise PumpError(f"SA client on {self.node}: no answer within {timeout}s")
        line = self.proc.stdout.readline()
        if not line:
            raise PumpError(f"SA client on {self.node} exited ({self.proc.poll()}): "
                            f"{self.err_path.read_text(errors='replace')[-2000:]}")
        return json.loads(line)

    def _call(self, msg: dict, timeout: float) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        return self._read(timeout + 10.0)

    def request(self, mad: SaMad, timeout: float = 2.0, dlid: int | None = None) -> SaMad | None:
        """Send a request; the response (matched on the low 32 TID bits) or None on timeout."""
        r = self._call({"op": "send", "mad": mad.encode().hex(), "dlid": dlid or self.sm_lid,
                        "timeout": timeout}, timeout)
        if r.get("timeout"):
            return None
        if "error" in r:
            raise PumpError(r["error"])
        resp = SaMad.decode(bytes.fromhex(r["mad"]))
        resp.length = r["length"]
        return resp

    def get(self, attr: int, mask: int, data: bytes, method: int = GET, sm_key: int = 0,
            timeout: float = 2.0) -> SaMad | None:
        return self.request(SaMad(method=method, attr_id=attr, comp_mask=mask, data=data,
                                  sm_key=sm_key), timeout)

    def report(self, timeout: float) -> SaMad | None:
        """The next Report the SA sent us (already answered with ReportResp), or None."""
        r = self._call({"op": "report", "timeout": timeout}, timeout)
        if r.get("timeout"):
            return None
        m = SaMad.decode(bytes.fromhex(r["mad"]))
        m.length = r["length"]
        return m

    def blast(self, mads: list[bytes], dlid: int | None = None, agent: str = "sa",
              drain: float = 1.0) -> dict:
        """Send every MAD as it is (no waiting, no TID of ours); counts of what was sent
        and of the answers that came back while sending and for `drain` seconds after."""
        r = self._call({"op": "blast", "mads": [m.hex() for m in mads], "agent": agent,
                        "dlid": dlid or self.sm_lid, "drain": drain}, drain + 0.01 * len(mads) + 30)
        if "error" in r:
            raise PumpError(r["error"])
        return r

    def burst(self, mads: list[bytes], window: int = 16, timeout: float = 5.0,
              dlid: int | None = None) -> list[int | None]:
        """Send every request pipelined, at most `window` waiting for their answer, each
        with a TID of ours; the status of each answer in order (None: no answer within
        `timeout` seconds of the last send)."""
        r = self._call({"op": "burst", "mads": [m.hex() for m in mads], "window": window,
                        "dlid": dlid or self.sm_lid, "timeout": timeout},
                       timeout + 0.01 * len(mads) + 30)
        if "error" in r:
            raise PumpError(r["error"])
        return r["statuses"]

    def stats(self) -> dict:
        return self._call({"op": "stats"}, 1.0)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self._call({"op": "quit"}, 2.0)
            except (PumpError, OSError, ValueError):
                pass
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(3)
        self._err.close()
        for d in self.workdir.glob("sys-*"):
            import shutil
            shutil.rmtree(d, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --------------------------------------------------------------------------- the pump

def _pump(issm: bool, perf: bool = False) -> int:  # pragma: no cover - runs under umad2sim
    import ctypes

    out = sys.stdout

    def emit(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    lib = ctypes.CDLL("libibumad.so.3", use_errno=True)

    class UmadPort(ctypes.Structure):
        _fields_ = [("ca_name", ctypes.c_char * 20), ("portnum", ctypes.c_int),
                    ("base_lid", ctypes.c_uint), ("lmc", ctypes.c_uint), ("sm_lid", ctypes.c_uint),
                    ("sm_sl", ctypes.c_uint), ("state", ctypes.c_uint), ("phys_state", ctypes.c_uint),
                    ("rate", ctypes.c_uint), ("capmask", ctypes.c_uint32),
                    ("gid_prefix", ctypes.c_uint64), ("port_guid", ctypes.c_uint64),
                    ("pkeys_size", ctypes.c_uint), ("pkeys", ctypes.c_void_p),
                    ("link_layer", ctypes.c_char * 20)]

    lib.umad_get_mad.restype = ctypes.c_void_p
    lib.umad_get_mad.argtypes = [ctypes.c_void_p]
    lib.umad_size.restype = ctypes.c_size_t
    lib.umad_send.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int]
    lib.umad_recv.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    lib.umad_set_addr.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.umad_register.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_uint8, ctypes.c_void_p]
    lib.umad_get_port.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(UmadPort)]
    lib.umad_get_issm_path.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]

    def be64(v: int) -> int:
        return int.from_bytes(v.to_bytes(8, sys.byteorder), "big")

    if lib.umad_init() < 0:
        emit({"error": "umad_init failed"})
        return 1
    port = UmadPort()
    if lib.umad_get_port(None, 0, ctypes.byref(port)) < 0:
        emit({"error": "umad_get_port failed"})
        return 1
    ca, portnum = port.ca_name, port.portnum
    fd = lib.umad_open_port(ca, portnum)
    if fd < 0:
        emit({"error": f"umad_open_port failed: {fd}"})
        return 1

    def mask(*methods: int):
        m = (ctypes.c_uint8 * 16)()
        for x in methods:
            m[x // 8] |= 1 << (x % 8)
        return m

    # Everything that can reach us is registered before anyone knows we are here.
    sa_agent = lib.umad_register(fd, CLASS_SA, 2, 1, mask(REPORT))
    if sa_agent < 0:
        emit({"error": f"umad_register class 3 failed: {sa_agent}"})
        return 1
    # --perf: a PerfMgt (class 0x04 version 1) agent too, so the pump may send PerfMgt MADs
    # (forged answers, test_forged_answers.py) and survive whatever of that class reaches it.
    perf_agent = None
    if perf:
        perf_agent = lib.umad_register(fd, CLASS_PERF, 1, 0, mask())
        if perf_agent < 0:
            emit({"error": f"umad_register class 4 failed: {perf_agent}"})
            return 1
    smi_agents = {}
    issm_fd = None
    if issm:
        for cls in (CLASS_SMI_LID, CLASS_SMI_DR):
            a = lib.umad_register(fd, cls, 1, 0, mask(GET, SET))
            if a < 0:
                emit({"error": f"umad_register class {cls:#x} failed: {a}"})
                return 1
            smi_agents[cls] = a
        path = ctypes.create_string_buffer(256)
        if lib.umad_get_issm_path(ca, portnum, path, 256) < 0:
            emit({"error": "umad_get_issm_path failed"})
            return 1
        # libc's open() (umad2sim wraps that symbol; Python's os.open may not reach it):
        # opening issm sets IsSM on our port, as it does for an SM on a real kernel.
        libc = ctypes.CDLL(None, use_errno=True)
        libc.open.argtypes = [ctypes.c_char_p, ctypes.c_int]
        issm_fd = libc.open(path.value, os.O_RDWR)
        if issm_fd < 0:
            emit({"error": f"open {path.value!r}: errno {ctypes.get_errno()}"})
            return 1

    usize = lib.umad_size()
    bufsize = usize + 65536
    rbuf = ctypes.create_string_buffer(bufsize)
    sbuf = ctypes.create_string_buffer(usize + 256)
    next_tid = [0x5A000001]
    reports: list[tuple[bytes, int]] = []
    counters = {"sent": 0, "responses": 0, "unmatched": 0, "reports": 0, "report_resps": 0,
                "sminfo_answered": 0, "other_requests": 0}

    def send_raw(agent: int, mad: bytes, dlid: int, dqp: int, qkey: int, timeout_ms: int = 0):
        ctypes.memset(sbuf, 0, usize + 256)
        lib.umad_set_addr(sbuf, dlid, dqp, 0, qkey)
        ctypes.memmove(lib.umad_get_mad(sbuf), mad, min(len(mad), 256))
        return lib.umad_send(fd, agent, sbuf, min(len(mad), 256), timeout_ms, 0)

    def recv(timeout_ms: int):
        """One MAD: (agent, bytes, slid, status) or None."""
        ln = ctypes.c_int(65536)
        ctypes.memset(rbuf, 0, usize + 1024)  # no stale bytes where a transport delivers less
        a = lib.umad_recv(fd, rbuf, ctypes.byref(ln), timeout_ms)
        if a < 0:
            return None
        st = ctypes.c_uint32.from_buffer(rbuf, 4).value
        lid_be = ctypes.c_uint16.from_buffer(rbuf, 20 + 8).value
        slid = int.from_bytes(lid_be.to_bytes(2, sys.byteorder), "big")
        n = max(0, min(ln.value, 65536))
        return a, bytes(rbuf.raw[usize:usize + n]), slid, st

    def unsolicited(agent: int, mad: bytes, slid: int) -> None:
        cls, method = mad[1], mad[3]
        if cls == CLASS_SA and method == REPORT:
            counters["reports"] += 1
            reports.append((mad, len(mad)))
            resp = bytearray(mad[:256].ljust(256, b"\0"))
            resp[3] = REPORT_RESP
            resp[4:6] = b"\0\0"
            resp[36:44] = bytes(8)
            if send_raw(sa_agent, bytes(resp), slid, 1, QKEY_GSI) >= 0:
                counters["report_resps"] += 1
            return
        if cls in (CLASS_SMI_LID, CLASS_SMI_DR) and method == GET and \
                struct.unpack_from(">H", mad, 16)[0] == ATTR_SMINFO:
            resp = bytearray(mad[:256].ljust(256, b"\0"))
            resp[3] = GET_RESP
            if cls == CLASS_SMI_DR:
                resp[4] = 0x80  # direction: returning
                resp[5] = 0
            else:
                resp[4:6] = b"\0\0"
            data = bytearray(64)
            struct.pack_into(">QQIB", data, 0, be64(port.port_guid), 0, 0, 0)  # NOTACTIVE, prio 0
            resp[64:128] = data
            dlid = 0xFFFF if cls == CLASS_SMI_DR else slid
            if send_raw(smi_agents[cls], bytes(resp), dlid, 0, 0) >= 0:
                counters["sminfo_answered"] += 1
            return
        counters["other_requests"] += 1

    def poll_until(deadline: float, want_tid: int | None):
        """Serve unsolicited MADs until the response to want_tid (low 32 bits) arrives."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            got = recv(max(1, min(int(left * 1000), 100)))
            if got is None:
                continue
            agent, mad, slid, st = got
            if len(mad) < 24:
                continue
            if mad[3] & 0x80:  # a response
                tid, = struct.unpack_from(">Q", mad, 8)
                if want_tid is not None and (tid & 0xFFFFFFFF) == want_tid:
                    counters["responses"] += 1
                    return mad, st
                counters["unmatched"] += 1
                continue
            unsolicited(agent, mad, slid)
            if want_tid is None and reports:
                return "report"

    emit({"lid": port.base_lid, "sm_lid": port.sm_lid, "port_guid": be64(port.port_guid),
          "gid_prefix": be64(port.gid_prefix), "ca": ca.decode(), "port": portnum, "issm": issm,
          "agent": sa_agent})

    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            emit({"error": "bad json"})
            continue
        op = msg.get("op")
        if op == "quit":
            emit({"bye": True})
            break
        if op == "stats":
            emit(dict(counters, queued_reports=len(reports)))
            continue
        if op == "report":
            deadline = time.monotonic() + float(msg.get("timeout", 5))
            if not reports:
                poll_until(deadline, None)
            if reports:
                mad, ln = reports.pop(0)
                emit({"mad": mad.hex(), "length": ln})
            else:
                emit({"timeout": True})
            continue
        if op == "blast":
            # Many MADs without waiting for their answers (hostile-wire tests): each is sent as
            # given (TID too, so responses can match nothing), on the SA agent or, with
            # --issm, an SMI agent; whatever arrives meanwhile is drained (umad2sim and
            # ibsim deadlock if nobody reads), unsolicited requests answered as usual.
            agent = {"sa": sa_agent, "smi": smi_agents.get(CLASS_SMI_LID),
                     "smi_dr": smi_agents.get(CLASS_SMI_DR),
                     "perf": perf_agent}.get(msg.get("agent", "sa"))
            if agent is None:
                emit({"error": f"no agent {msg.get('agent')!r} (SMI agents need --issm, "
                               "the PerfMgt one --perf)"})
                continue
            dqp, qkey = (1, QKEY_GSI) if msg.get("agent", "sa") in ("sa", "perf") else (0, 0)
            sent = failed = answers = 0
            for h in msg["mads"]:
                if send_raw(agent, bytes.fromhex(h), int(msg["dlid"]), dqp, qkey) >= 0:
                    sent += 1
                else:
                    failed += 1
                # Paced by the answers (at most 1 ms per MAD without one): a client that
                # outruns the SM fills ibsim's socket to it, and ibsim, which retries a
                # blocked write forever, deadlocks with the SM's own blocked write.
                wait_ms = 1
                while (got := recv(wait_ms)) is not None:
                    wait_ms = 0
                    a, m, slid, st = got
                    if len(m) >= 24 and not m[3] & 0x80:
                        unsolicited(a, m, slid)
                    else:
                        answers += 1
            deadline = time.monotonic() + float(msg.get("drain", 1.0))
            while time.monotonic() < deadline:
                got = recv(50)
                if got is None:
                    continue
                a, m, slid, st = got
                if len(m) >= 24 and not m[3] & 0x80:
                    unsolicited(a, m, slid)
                else:
                    answers += 1
            counters["sent"] += sent
            emit({"sent": sent, "failed": failed, "answers": answers})
            continue
        if op == "burst":
            # Pipelined requests with our TIDs (resource-limit tests): a window of them in
            # flight, the next sent as an answer arrives; answers matched on the low 32
            # TID bits, their statuses returned in the order of the requests.
            mads = [bytearray(bytes.fromhex(h)) for h in msg["mads"]]
            window = max(1, int(msg.get("window", 16)))
            statuses: list = [None] * len(mads)
            waiting: dict[int, int] = {}
            nxt = 0
            deadline = time.monotonic() + float(msg.get("timeout", 5.0))
            while (nxt < len(mads) or waiting) and time.monotonic() < deadline:
                while nxt < len(mads) and len(waiting) < window:
                    tid = next_tid[0]
                    next_tid[0] = (next_tid[0] + 1) & 0xFFFFFFFF
                    mads[nxt][8:16] = struct.pack(">Q", tid)
                    if send_raw(sa_agent, bytes(mads[nxt]), int(msg["dlid"]), 1, QKEY_GSI) >= 0:
                        waiting[tid] = nxt
                        counters["sent"] += 1
                    nxt += 1
                    deadline = time.monotonic() + float(msg.get("timeout", 5.0))
                got = recv(100)
                if got is None:
                    continue
                a, m, slid, st = got
                if len(m) < 24:
                    continue
                if not m[3] & 0x80:
                    unsolicited(a, m, slid)
                    continue
                tid, = struct.unpack_from(">Q", m, 8)
                i = waiting.pop(tid & 0xFFFFFFFF, None)
                if i is None:
                    counters["unmatched"] += 1
                    continue
                counters["responses"] += 1
                statuses[i] = struct.unpack_from(">H", m, 4)[0]
            emit({"statuses": statuses})
            continue
        if op == "send":
            mad = bytearray(bytes.fromhex(msg["mad"]))
            tid = next_tid[0]
            next_tid[0] = (next_tid[0] + 1) & 0xFFFFFFFF
            mad[8:16] = struct.pack(">Q", tid)
            timeout = float(msg.get("timeout", 2.0))
            rc = send_raw(sa_agent, bytes(mad), int(msg["dlid"]), 1, QKEY_GSI,
                          max(1, int(timeout * 1000)))
            counters["sent"] += 1
            if rc < 0:
                emit({"error": f"umad_send failed: {rc}"})
                continue
            got = poll_until(time.monotonic() + timeout, tid)
            if got is None:
                emit({"timeout": True, "tid": tid})
            else:
                resp, st = got
                emit({"mad": resp.hex(), "length": len(resp), "status": st, "tid": tid})
            continue
        emit({"error": f"unknown op {op!r}"})
    if issm_fd is not None:
        libc.close(issm_fd)
    lib.umad_close_port(fd)
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "serve":
        sys.exit(_pump("--issm" in sys.argv[2:], "--perf" in sys.argv[2:]))
    print(__doc__)
    sys.exit(2)
