"""The Subnet Administrator judged from outside: infiniband-diags' saquery (and smpquery -G),
a raw SA client (sa_client.py) for what saquery cannot send, and OpenSM's osmtest, each
run against Debian's opensm and against ibsm on the same fabric, side by side.

OpenSM is the reference: a query's expectation (record count, exit code) is asserted on
OpenSM's answer first, so a test that OpenSM fails is a wrong test, and equality with a
silent or broken ibsm cannot pass by accident.  ibsm must then answer the same, field by
field.  What may legitimately differ is normalised, each with its reason:

* LIDs: both SMs hand out LIDs their own way.  The pair fixture starts OpenSM first and
  gives ibsm OpenSM's guid2lid file (which ibsm honours like OpenSM), so every LID is the
  same on both fabrics and outputs can be compared verbatim.
* Routes: LinearForwardingTableRecords carry each SM's routing; they are compared with
  what `ibroute` (SMPs) reads from the same switch instead, and structurally with OpenSM.
* SMInfoRecord.ActCount: each SM's own activity counter.
* SL2VL and VLArbitration table records: neither SM programs these tables here (no QoS),
  so the ports hold ibsim's defaults.  OpenSM (qos disabled) never reads them and answers
  zeros from its cache; ibsm reads those of end ports and reports what they hold (by
  design), and answers like OpenSM for switch ports.  So the records' shape (which LIDs,
  ports and blocks) must be OpenSM's, and each record's contents either OpenSM's or what
  the port holds by `smpquery sl2vl` / `smpquery vlarb` (SMPs) — anything else fails.
* Tables longer than one MAD: umad2sim carries one MAD, so a GetTable answer shows only
  its first records (ibsim has no RMPP; of those, only the first 224 bytes of the MAD arrive
  intact, see MAD_BYTES_CARRIED) and which records come first is the SM's iteration
  order.  For those, the count must equal OpenSM's and every record shown must be one
  OpenSM gives for the narrow query naming it (LinkRecords: a link ibnetdiscover sees;
  SL2VL: what the port holds).

Behaviour that differs from OpenSM by design is asserted for ibsm and said where.
OpenSM always runs (it is the reference, also with IBSIM_SM=ibsm); without IBSM_BIN the
ibsm halves skip (IBSM_REQUIRE=1: fail), and an ibsm that does not come up fails them.
Everything runs on one 4-ary 3-tree (48 switches, 64 hosts): one ibsim + SM per SM for the
read-only comparisons, fresh pairs for tests that change the fabric or the SM's state.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import sys
import time
from pathlib import Path

import pytest

import checks
from ibsimlib import (HarnessError, Ibsm, OpenSM, SMProcess, Simulator, parse_ibroute, run_tool,
                      wait_for)
import sa_client as sac
from sa_client import SaClient, SaMad

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "fabrics"))
import gen_fabric  # noqa: E402

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
SHARED_NET = Path(os.environ.get("IBSM_TOPOLOGIES")
                  or Path(__file__).resolve().parents[3] / "shared" / "topologies") / "kary-4-3-64.net"
SM_NODE, JUDGE = "h0_0", "h15_3"
HOST_A, HOST_B, HOST_C = "h1_2", "h9_1", "h6_0"  # A and B: different halves of the tree
LEAF, SPINE = "sw0_1", "sw2_5"
NO_LID = 999  # assigned to nobody (the fabric has 112 end ports)
SAQ_TIMEOUT_MS = 2000
BROADCAST_MGID = "ff12:401b:ffff::ffff:ffff"


# --------------------------------------------------------------------------- fixtures

def fabric_file(tmp: Path) -> Path:
    if SHARED_NET.exists():
        return SHARED_NET
    path = tmp / "kary-4-3-64.net"
    path.write_text(gen_fabric.kary(k=4, n=3).render())
    return path


def ibsm_or_skip() -> Ibsm | None:
    """ibsm, or None (the ibsm half is skipped; IBSM_REQUIRE=1 makes that a failure)."""
    if os.environ.get("IBSIM_SM") == "opensm":
        return None
    impl = Ibsm()
    reason = impl.available()
    if reason:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {reason}")
        return None
    return impl


class Run:
    """One SM on its own simulator of the fabric, and what ibnetdiscover saw."""

    def __init__(self, sm, sim: Simulator, proc: SMProcess, topo):
        self.sm, self.sim, self.proc, self.topo = sm, sim, proc, topo
        self.name = sm.name

    def lid(self, desc: str) -> int:
        n = self.topo.by_desc[desc]
        return n.lid if n.is_switch else n.ports[1].lid

    def guid(self, desc: str) -> int:
        n = self.topo.by_desc[desc]
        return n.guid if n.is_switch else n.ports[1].guid

    def gid(self, desc: str) -> str:
        return sac.gid_str(self.gid_bytes(desc))

    def gid_bytes(self, desc: str) -> bytes:
        return sac.gid_bytes(0xFE80000000000000, self.guid(desc))

    def tool(self, argv: list[str], node: str = JUDGE, timeout: float = 30.0):
        return run_tool(self.sim, node, argv, timeout=timeout, check=False)

    def saquery(self, args: list[str], node: str = JUDGE, timeout_ms: int = SAQ_TIMEOUT_MS):
        return self.tool(["saquery", "-t", str(timeout_ms)] + args, node, timeout_ms / 1000 + 20)

    def client(self, node: str, workdir: Path, issm: bool = False) -> SaClient:
        return SaClient(self.sim, node, workdir / f"client-{self.name}-{node}", issm=issm)


def start_run(sm, net: Path, workdir: Path, tag: str, cache_from: Path | None = None,
              extra: list[str] | None = None, started: list | None = None) -> Run:
    sim = Simulator(net, workdir / f"{tag}-sim", tag)
    if started is not None:
        started.append(sim)
    sim.start()
    cache = workdir / f"{tag}-sm" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    if cache_from is not None:
        shutil.copy(cache_from, cache / "guid2lid")
    proc = SMProcess(sm, sim, SM_NODE, workdir / f"{tag}-sm", once=False, cache_dir=cache,
                     extra=extra or [])
    if started is not None:
        started.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    return Run(sm, sim, proc, checks.discover(sim, JUDGE))


class Pair(dict):
    """{"opensm": Run, "ibsm": Run}; without "ibsm", why (None: not configured, a skip)."""

    ibsm_error: str | None = None


def start_pair(workdir: Path, started: list, extra: list[str] | None = None) -> Pair:
    """OpenSM, then ibsm with OpenSM's LIDs (module doc).  An ibsm that does not come up
    fails the ibsm half of each test, not the OpenSM half."""
    net = fabric_file(workdir)
    ref = OpenSM()
    reason = ref.available()
    if reason:
        pytest.skip(reason)
    runs = Pair(opensm=start_run(ref, net, workdir, "opensm", extra=extra, started=started))
    g2l = runs["opensm"].proc.cache_dir / "guid2lid"
    wait_for(lambda: g2l.exists() and g2l.stat().st_size > 0, 10, "OpenSM's guid2lid file")
    dut = ibsm_or_skip()
    if dut is not None:
        try:
            runs["ibsm"] = start_run(dut, net, workdir, "ibsm", cache_from=g2l, extra=extra,
                                     started=started)
        except HarnessError as e:
            runs.ibsm_error = f"ibsm did not come up: {e}"
            return runs
        a, b = runs["opensm"].topo, runs["ibsm"].topo
        moved = [f"{n.desc}[{p}]: opensm {lid} ibsm {b.lid_owner().get(lid)}"
                 for n, p, lid in a.end_ports()
                 if (lambda o: o is None or o[0].guid != n.guid or o[1] != p)(b.lid_owner().get(lid))]
        assert not moved, ("ibsm did not keep the LIDs of the guid2lid file it was given:\n  "
                           + "\n  ".join(moved[:10]))
    return runs


def stop_all(started: list) -> None:
    for x in reversed(started):
        if isinstance(x, SMProcess):
            x.kill()
        else:
            x.stop()


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """The read-only pair shared by the comparison tests."""
    workdir = tmp_path_factory.mktemp("sa-pair")
    started: list = []
    try:
        yield start_pair(workdir, started)
    finally:
        stop_all(started)


@pytest.fixture
def fresh(workdir):
    """Starts a private pair on demand (for tests that change the fabric or SA state)."""
    started: list = []
    yield lambda extra=None: start_pair(workdir, started, extra)
    stop_all(started)


def need_ibsm(runs: Pair) -> Run:
    if "ibsm" not in runs:
        if runs.ibsm_error:
            pytest.fail(runs.ibsm_error[:3000])
        pytest.skip("ibsm not available (IBSM_BIN); only OpenSM's half ran")
    return runs["ibsm"]


# --------------------------------------------------------------------------- saquery output

_pid = re.compile(r"\[\d+\]")
_header = re.compile(r"^[A-Za-z].*dump:\s*$")


def normalise(text: str) -> str:
    text = _pid.sub("[pid]", text)
    # SMInfoRecord: the activity counter is each SM's own (module doc).
    text = re.sub(r"(ActCount\.+)\d+", r"\1<n>", text)
    # ServiceRecord: ServiceData64[1] lies past byte 224 of the MAD (MAD_BYTES_CARRIED)
    return re.sub(r"(ServiceData64\.2\.+)\S+", r"\1<past byte 224>", text)


def split_records(out: str) -> list[str]:
    recs: list[list[str]] = []
    for line in out.splitlines():
        if _header.match(line):
            recs.append([line])
        elif recs:
            recs[-1].append(line)
    return ["\n".join(r).rstrip() for r in recs]


def lfts_masked(text: str) -> str:
    """An LFTR dump with the ports replaced: the routes are each SM's own."""
    return re.sub(r"^(\t\t\d+)\t\d+$", r"\1\t*", text, flags=re.M)


def lftr_ports(text: str) -> dict[int, int]:
    return {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^\t\t(\d+)\t(\d+)$", text, re.M)}


def tables_masked(text: str) -> str:
    """SL2VL/VLArb dumps without the table contents (module doc)."""
    return re.sub(r"^(\t\t(?:VL|Weight)\s*:).*$", r"\1 *", text, flags=re.M)


def _ints(line: str) -> list[int]:
    return [int(x, 0) for x in re.findall(r"(0x[0-9a-fA-F]+|\d+)", line.split(":", 1)[1])]


class PortTables:
    """SL2VL and VLArbitration tables as the ports hold them, read with smpquery (SMPs)."""

    def __init__(self, run: Run):
        self.run = run
        self.cache: dict = {}

    def sl2vl(self, lid: int, inp: int, outp: int) -> list[int] | None:
        key = ("sl2vl", lid, outp)
        if key not in self.cache:
            argv = ["smpquery", "sl2vl", str(lid)] + ([str(outp)] if outp else [])
            rows = {}
            for m in re.finditer(r"^ports: in\s+(\d+), out\s+(\d+): \|(.*)$",
                                 self.run.tool(argv).stdout, re.M):
                vls = [int(x) for x in m.group(3).split("|") if x.strip()]
                rows[(int(m.group(1)), int(m.group(2)))] = vls
            self.cache[key] = rows
        return self.cache[key].get((inp, outp))

    def vlarb(self, lid: int, port: int, block: int) -> list[tuple[int, int]]:
        key = ("vlarb", lid, port)
        if key not in self.cache:
            out = self.run.tool(["smpquery", "vlarb", str(lid), str(port)]).stdout
            tables, cur = {}, None
            for line in out.splitlines():
                if line.startswith("# Low"):
                    cur = tables.setdefault(1, [[], []])
                elif line.startswith("# High"):
                    cur = tables.setdefault(3, [[], []])
                elif cur is not None and line.startswith("VL"):
                    cur[0] += _ints(line)
                elif cur is not None and line.startswith("WEIGHT"):
                    cur[1] += _ints(line)
            self.cache[key] = {b: list(zip(v[0], v[1])) for b, v in tables.items()}
        pairs = self.cache[key].get(block, [])  # blocks 2 and 4: entries 32-63, beyond the caps
        return pairs + [(0, 0)] * (32 - len(pairs))


def table_problems(text: str, truth: PortTables, ref_records: list[str]) -> list[str]:
    """SL2VL/VLArb records of a saquery dump that are neither OpenSM's record (ref_records:
    OpenSM's answer to the same query) nor what the port holds (module doc)."""
    problems = []
    ref = {normalise(r) for r in ref_records}
    for rec in split_records(text):
        if normalise(rec) in ref:
            continue
        f = {m.group(1): int(m.group(2), 0) for m in
             re.finditer(r"^\t\t(LID|InPort|OutPort|Port|Block)\.+(\S+)$", rec, re.M)}
        if rec.startswith("SL2VL"):
            vls = _ints(next(l for l in rec.splitlines() if l.strip().startswith("VL:")))
            want = truth.sl2vl(f["LID"], f["InPort"], f["OutPort"])
            if vls != want:
                problems.append(f"SL2VL LID {f['LID']} in {f['InPort']} out {f['OutPort']}: SA {vls}, "
                                f"port {want}")
        else:
            vl = [x for l in rec.splitlines() if l.strip().startswith("VL ") for x in _ints(l)]
            wt = [x for l in rec.splitlines() if l.strip().startswith("Weight") for x in _ints(l)]
            got = list(zip(vl, wt))
            want = truth.vlarb(f["LID"], f["Port"], f["Block"])
            if got != want:
                problems.append(f"VLArb LID {f['LID']} port {f['Port']} block {f['Block']}: SA {got}, "
                                f"port {want}")
    return problems


# Each entry: id -> (args builder, records OpenSM must show, exit code, how to compare)
#   compare: "exact" (verbatim after normalise), "trimmed" (more than one MAD: count and
#   membership, module doc), "lft" (routes judged by ibroute), "tables" (SL2VL/VLArb: shape
#   as OpenSM's, contents OpenSM's or the port's by smpquery, module doc)
def _q(args, records, rc=0, compare="exact", node=JUDGE):
    return {"args": args, "records": records, "rc": rc, "compare": compare, "node": node}


QUERIES = {
    "cpi": _q(lambda r: ["-c"], 0),
    "nr-host": _q(lambda r: ["NR", str(r.lid(HOST_A))], 1),
    "nr-switch": _q(lambda r: ["NR", str(r.lid(SPINE))], 1),
    "nr-none": _q(lambda r: ["NR", str(NO_LID)], 0),
    "nr-all": _q(lambda r: [], 1, compare="trimmed"),
    "pir-host": _q(lambda r: ["PIR", f"{r.lid(HOST_A)}/1"], 1),
    "pir-switch-port": _q(lambda r: ["PIR", f"{r.lid(LEAF)}/6"], 1),
    "pir-switch-port0": _q(lambda r: ["PIR", f"{r.lid(LEAF)}/0"], 1),
    "pir-none": _q(lambda r: ["PIR", f"{NO_LID}/1"], 0),
    "issm": _q(lambda r: ["-s"], 1),
    "pr-lids": _q(lambda r: ["-p", "--slid", str(r.lid(HOST_A)), "--dlid", str(r.lid(HOST_B))], 1),
    "pr-to-switch": _q(lambda r: ["-p", "--slid", str(r.lid(HOST_A)), "--dlid", str(r.lid(SPINE))], 1),
    "pr-none": _q(lambda r: ["-p", "--slid", str(r.lid(HOST_A)), "--dlid", str(NO_LID)], 0),
    "pr-src-to-dst": _q(lambda r: ["--src-to-dst", f"{r.lid(HOST_B)}:{r.lid(HOST_C)}"], 1),
    # names are resolved from a NodeRecord table that arrives cut to one record
    "pr-src-to-dst-names": _q(lambda r: ["--src-to-dst", f"{HOST_A}:{HOST_B}"], 0, rc=64),
    "pr-sgid-to-dgid": _q(lambda r: ["--sgid-to-dgid", f"{r.gid(HOST_A)}-{r.gid(HOST_B)}"], 1),
    "pr-sgid-to-dgid-none": _q(lambda r: ["--sgid-to-dgid", f"{r.gid(HOST_A)}-fe80::dead:beef"], 0),
    "pr-world": _q(lambda r: ["-p"], 3, compare="trimmed"),
    "lr-switch": _q(lambda r: ["LR", f"{r.lid(LEAF)}/5"], 1),
    "lr-host": _q(lambda r: ["LR", f"{r.lid(HOST_A)}/1"], 1),
    "lr-none": _q(lambda r: ["LR", f"{NO_LID}/1"], 0),
    "lr-all": _q(lambda r: ["-x"], 25, compare="trimmed"),
    "swir": _q(lambda r: ["SWIR", str(r.lid(LEAF))], 1),
    "swir-host": _q(lambda r: ["SWIR", str(r.lid(HOST_A))], 0),
    "lftr-block0": _q(lambda r: ["LFTR", f"{r.lid(LEAF)}/0"], 1, compare="lft"),
    "lftr-block1": _q(lambda r: ["LFTR", f"{r.lid(SPINE)}/1"], 1, compare="lft"),
    "lftr-beyond-top": _q(lambda r: ["LFTR", f"{r.lid(LEAF)}/9"], 0),
    "mftr": _q(lambda r: ["MFTR"], 0),
    "mftr-switch": _q(lambda r: ["MFTR", str(r.lid(LEAF))], 0),
    "mcmr": _q(lambda r: ["MCMR"], 1),
    "mcmr-groups": _q(lambda r: ["-g"], 1),
    "mcmr-mgid": _q(lambda r: ["MCMR", "--mgid", BROADCAST_MGID], 1),
    "mcmr-mgid-none": _q(lambda r: ["MCMR", "--mgid", "ff12:401b:1234::ffff:ffff"], 0),
    "smir": _q(lambda r: ["SMIR"], 1),
    "smir-lid": _q(lambda r: ["SMIR", str(r.lid(SM_NODE))], 1),
    "smir-none": _q(lambda r: ["SMIR", str(r.lid(HOST_A))], 0),
    "sr": _q(lambda r: ["SR"], 0),
    "sr-S": _q(lambda r: ["-S"], 0),
    "iir": _q(lambda r: ["IIR"], 0),
    "iir-I": _q(lambda r: ["-I"], 0),
    "pktr-trusted": _q(lambda r: ["PKTR", "--smkey", "1", str(r.lid(HOST_A))], 2),
    "pktr-switch-trusted": _q(lambda r: ["PKTR", "--smkey", "1", f"{r.lid(LEAF)}/0"], 1),
    "pktr-untrusted": _q(lambda r: ["PKTR", str(r.lid(HOST_A))], 0, rc=5),  # 0x0200
    "pktr-none": _q(lambda r: ["PKTR", "--smkey", "1", str(NO_LID)], 0),
    "sl2vl-host": _q(lambda r: ["SL2VL", str(r.lid(HOST_A))], 1, compare="tables"),
    "sl2vl-switch": _q(lambda r: ["SL2VL", str(r.lid(LEAF))], 12, compare="trimmed"),
    "sl2vl-switch-narrow": _q(lambda r: ["SL2VL", f"{r.lid(LEAF)}/3/6"], 1, compare="tables"),
    "sl2vl-none": _q(lambda r: ["SL2VL", str(NO_LID)], 0),
    "vlar-host": _q(lambda r: ["VLAR", str(r.lid(HOST_A))], 2, compare="tables"),
    "vlar-switch-narrow": _q(lambda r: ["VLAR", f"{r.lid(LEAF)}/5/2"], 1, compare="tables"),
    "vlar-switch-high": _q(lambda r: ["VLAR", f"{r.lid(SPINE)}/2/3"], 1, compare="tables"),
    "vlar-none": _q(lambda r: ["VLAR", str(NO_LID)], 0),
    "gir-host": _q(lambda r: ["GIR", str(r.lid(HOST_A))], 2),
    "gir-switch": _q(lambda r: ["GIR", str(r.lid(LEAF))], 1),
    "gir-none": _q(lambda r: ["GIR", str(NO_LID)], 0),
}


# Record sizes of the trimmed tables, and the bytes of a MAD that survive ibsim: Debian's
# umad2sim (0.10, with rdma-core 44's libibumad) carries 224 bytes of each MAD, in both
# directions; saquery still counts records up to 256 bytes, so records reaching past byte
# 224 show whatever was in the buffer, for either SM (observed: the third PathRecord of
# `saquery -p`, ServiceRecord.ServiceData64[1] of a Set).
TRIMMED_SIZE = {"nr-all": 112, "lr-all": 8, "pr-world": 64, "sl2vl-switch": 16}
MAD_BYTES_CARRIED = 224


def topo_links(r: Run) -> set[tuple[int, int, int, int]]:
    """(FromLID, FromPort, ToPort, ToLID) of every link ibnetdiscover saw, both directions."""
    by_guid = r.topo.nodes
    out = set()
    for n in by_guid.values():
        for p in n.ports.values():
            peer = by_guid.get(p.peer_guid)
            if peer is None:
                continue
            a = n.lid if n.is_switch else p.lid
            b = peer.lid if peer.is_switch else peer.ports[p.peer_port].lid
            out.add((a, p.num, p.peer_port, b))
    return out


def narrow_for(qid: str, rec: str, r: Run) -> list[str]:
    """The narrow query that names the record `rec` of a trimmed table."""
    def field(name):
        m = re.search(rf"^\s*{name}\.*\s*(\S+)", rec, re.M)
        assert m, f"no {name} in\n{rec}"
        return m.group(1)
    if qid == "nr-all":
        return ["NR", field("lid")]
    if qid == "pr-world":
        return ["-p", "--slid", field("slid"), "--dlid", field("dlid")]
    raise KeyError(qid)


@pytest.mark.parametrize("qid", list(QUERIES))
def test_saquery_matches_opensm(pair, qid):
    """`saquery <query>` shows the same on both SMs (module doc for what is normalised)."""
    spec = QUERIES[qid]
    ref = pair["opensm"]
    args = spec["args"](ref)
    got = {}
    for name, run in pair.items():
        cp = run.saquery(args, spec["node"])
        got[name] = cp
    o = got["opensm"]
    orecs = split_records(o.stdout)
    # The expectation holds for OpenSM first: otherwise the test is wrong, not ibsm.
    assert (o.returncode, len(orecs)) == (spec["rc"], spec["records"]), (
        f"reference: opensm `saquery {' '.join(args)}` gave rc {o.returncode} and "
        f"{len(orecs)} records, the test expects rc {spec['rc']} and {spec['records']}\n"
        f"{o.stdout[-1500:]}\n{o.stderr[-500:]}")
    dut = need_ibsm(pair)
    i = got["ibsm"]
    what = f"`saquery {' '.join(args)}` (as {spec['node']})"
    assert i.returncode == o.returncode, (
        f"{what}: ibsm exit {i.returncode}, opensm {o.returncode}\n--- ibsm\n{i.stdout[-1500:]}"
        f"{i.stderr[-800:]}\n--- opensm\n{o.stdout[-800:]}{o.stderr[-400:]}\n{dut.proc.tail(1500)}")
    if spec["compare"] == "exact":
        assert normalise(i.stdout) == normalise(o.stdout), (
            f"{what}: ibsm differs from opensm\n--- ibsm\n{i.stdout}\n--- opensm\n{o.stdout}")
        assert normalise(i.stderr) == normalise(o.stderr), f"{what}: stderr\n{i.stderr}\n{o.stderr}"
    elif spec["compare"] == "lft":
        assert lfts_masked(i.stdout) == lfts_masked(o.stdout), (
            f"{what}: LFT records differ in more than the ports\n--- ibsm\n{i.stdout}\n"
            f"--- opensm\n{o.stdout}")
        for name, run in pair.items():
            lid = int(args[1].split("/")[0])
            table = parse_ibroute(run.tool(["ibroute", "-n", str(lid)]).stdout)
            ports = lftr_ports(got[name].stdout)
            wrong = [f"LID {l}: SA says port {p}, ibroute {table.get(l)}"
                     for l, p in sorted(ports.items()) if p != 255 and table.get(l) != p]
            wrong += [f"LID {l}: SA says unrouted (255), ibroute {table[l]}"
                      for l, p in sorted(ports.items()) if p == 255 and l in table]
            assert not wrong, f"{what} on {name}: the SA's LFT is not the switch's\n  " + \
                "\n  ".join(wrong[:10])
    elif spec["compare"] == "tables":
        assert tables_masked(i.stdout) == tables_masked(o.stdout), (
            f"{what}: records differ from opensm's in more than the table contents\n--- ibsm\n"
            f"{i.stdout}\n--- opensm\n{o.stdout}")
        wrong = table_problems(i.stdout, PortTables(dut), orecs)
        assert not wrong, (f"{what}: ibsm reports tables that neither OpenSM reports nor the ports "
                           "hold\n  " + "\n  ".join(wrong))
    else:  # trimmed: same count, every record one OpenSM gives for its narrow query
        irecs = split_records(i.stdout)
        assert len(irecs) == len(orecs), f"{what}: ibsm {len(irecs)} records, opensm {len(orecs)}"
        size = TRIMMED_SIZE[qid]
        for k, rec in enumerate(irecs):
            if 56 + (k + 1) * size > MAD_BYTES_CARRIED:
                break  # not carried intact by umad2sim (above)
            if qid == "lr-all":  # judged by ibnetdiscover's links (cheaper than 21 queries)
                f = {m.group(1): int(m.group(2)) for m in
                     re.finditer(r"^\t\t(FromLID|FromPort|ToPort|ToLID)\.+(\d+)$", rec, re.M)}
                link = (f["FromLID"], f["FromPort"], f["ToPort"], f["ToLID"])
                assert link in topo_links(dut), f"{what}: ibsm shows a link that is not there: {rec}"
                continue
            if qid == "sl2vl-switch":  # OpenSM's record or the port's table (module doc)
                nargs = ["SL2VL", "/".join(re.findall(r"(?:LID|InPort|OutPort)\.+(\d+)", rec))]
                wrong = table_problems(rec, PortTables(dut),
                                       split_records(ref.saquery(nargs, spec["node"]).stdout))
                assert not wrong, f"{what}: " + "; ".join(wrong)
                continue
            nargs = narrow_for(qid, rec, ref)
            ref_recs = split_records(ref.saquery(nargs, spec["node"]).stdout)
            assert normalise(rec) in [normalise(x) for x in ref_recs], (
                f"{what}: ibsm shows a record opensm does not have for "
                f"`saquery {' '.join(nargs)}`:\n{rec}\n--- opensm\n" + "\n".join(ref_recs))


def test_saquery_by_name_and_smkey(pair):
    """`smpquery -G portinfo <guid>` resolves the GUID with a PathRecord Get (libibmad) and
    must read the same PortInfo as by LID; `saquery --smkey 2` (wrong key) gets no answer
    while --smkey 1 (the default sa_key) and no key are answered."""
    problems = []
    for name, run in pair.items():
        guid = run.guid(HOST_B)
        by_gid = run.tool(["smpquery", "-G", "portinfo", f"{guid:#x}"])
        by_lid = run.tool(["smpquery", "portinfo", str(run.lid(HOST_B))])
        if by_gid.returncode != 0 or by_gid.stdout != by_lid.stdout:
            problems.append(f"{name}: smpquery -G portinfo {guid:#x} rc {by_gid.returncode}\n"
                            f"{by_gid.stdout[:300]}{by_gid.stderr[-500:]}\n  by LID:\n{by_lid.stdout[:300]}")
        args = ["NR", str(run.lid(HOST_B))]
        bad = run.saquery(["--smkey", "2"] + args, timeout_ms=1000)
        good = run.saquery(["--smkey", "1"] + args, timeout_ms=1000)
        if bad.returncode == 0 or "timed out" not in bad.stderr:
            problems.append(f"{name}: saquery --smkey 2 was answered (rc {bad.returncode}):\n"
                            f"{bad.stdout[:400]}{bad.stderr[-300:]}")
        if good.returncode != 0 or len(split_records(good.stdout)) != 1:
            problems.append(f"{name}: saquery --smkey 1 rc {good.returncode}:\n{good.stderr[-300:]}")
    assert not problems, "\n".join(problems)
    need_ibsm(pair)


# --------------------------------------------------------------------------- raw client

def pr_get(client: SaClient, run: Run, dst: str, mask_name: str, src: str | None = None,
           pkey: int = 0xFFFF) -> SaMad | None:
    pr = sac.PathRecord(sgid=run.gid_bytes(src) if src else client.gid, dgid=run.gid_bytes(dst),
                        numb_path=1, reversible=1, pkey=pkey,
                        service_id=0x0000000001060000 | 4791 if "rdma_cm" in mask_name else 0)
    return client.get(sac.ATTR_PATH_RECORD, sac.CLIENT_PR_MASKS[mask_name], pr.encode())


def test_pathrecord_get_as_clients_send_it(pair, workdir):
    """PathRecord Get by SGID/DGID with the component masks of rdma_cm (IPv4 and AF_IB),
    IPoIB and libibmad: exactly one reversible path, byte for byte the one OpenSM gives,
    with the endpoints' LIDs, both directions, host and switch destinations."""
    answers: dict[str, dict] = {}
    for name, run in pair.items():
        answers[name] = {}
        with run.client(HOST_A, workdir) as cl:
            for mask in sac.CLIENT_PR_MASKS:
                for dst in (HOST_B, SPINE):
                    answers[name][(mask, dst)] = pr_get(cl, run, dst, mask)
        with run.client(HOST_B, workdir) as cl:
            for mask in ("ipoib", "rdma_cm_ib"):
                answers[name][(mask, "reverse")] = pr_get(cl, run, HOST_A, mask)
    ref = pair["opensm"]
    problems = []
    for key, o in answers["opensm"].items():
        dst = HOST_A if key[1] == "reverse" else key[1]
        src = HOST_B if key[1] == "reverse" else HOST_A
        # the reference must be what the test claims, else the test is wrong
        assert o is not None and o.status == 0 and o.method == sac.GET_RESP, f"opensm {key}: {o}"
        recs = o.records()
        assert len(recs) == 1, f"opensm {key}: {len(recs)} records"
        p = sac.PathRecord.decode(recs[0])
        assert (p.slid, p.dlid, p.reversible) == (ref.lid(src), ref.lid(dst), 1), f"opensm {key}: {p}"
        if "ibsm" not in answers:
            continue
        i = answers["ibsm"][key]
        if i is None:
            problems.append(f"{key}: no answer from ibsm")
            continue
        if (i.method, i.status, i.attr_offset) != (o.method, o.status, o.attr_offset):
            problems.append(f"{key}: ibsm method {i.method:#x} status {i.status:#06x} attr_offset "
                            f"{i.attr_offset}, opensm {o.method:#x} {o.status:#06x} {o.attr_offset}")
            continue
        if len(i.records()) != 1 or i.records()[0] != recs[0]:
            problems.append(f"{key}: ibsm {[sac.PathRecord.decode(r) for r in i.records()]}\n"
                            f"      opensm {p}")
    need_ibsm(pair)
    assert not problems, "PathRecord Get differs from OpenSM:\n  " + "\n  ".join(problems)


def status_probes(run: Run, cl: SaClient) -> dict[str, object]:
    """Get and GetTable requests whose answer is a status (or nothing)."""
    nr = sac.ATTR_NODE_RECORD
    unknown_gid = sac.gid_bytes(0xFE80000000000000, 0xDEADBEEF)
    out: dict[str, object] = {}

    def st(r):
        return None if r is None else (r.method, r.status, len(r.records()))

    out["nr-get-unknown-lid"] = st(cl.get(nr, 1, sac.node_record_query(NO_LID)))
    out["nr-get-many"] = st(cl.get(nr, 0, sac.node_record_query(0)))
    out["nr-get-one"] = st(cl.get(nr, 1, sac.node_record_query(run.lid(HOST_B))))
    out["nr-table-unknown-lid"] = st(cl.get(nr, 1, sac.node_record_query(NO_LID), method=sac.GET_TABLE))
    pr = sac.PathRecord(sgid=cl.gid, dgid=unknown_gid)
    out["pr-get-unknown-dgid"] = st(cl.get(sac.ATTR_PATH_RECORD, sac.PR_SGID | sac.PR_DGID, pr.encode()))
    pr = sac.PathRecord(sgid=cl.gid, dgid=run.gid_bytes(HOST_B), service_id=1)
    out["pr-get-half-service-id"] = st(cl.get(sac.ATTR_PATH_RECORD,
                                              sac.PR_SGID | sac.PR_DGID | 1, pr.encode()))
    out["pr-set-unsupported"] = st(cl.get(sac.ATTR_PATH_RECORD, sac.PR_SGID | sac.PR_DGID,
                                          sac.PathRecord(sgid=cl.gid, dgid=run.gid_bytes(HOST_B)).encode(),
                                          method=sac.SET))
    out["mcmr-get-mask0"] = st(cl.get(sac.ATTR_MCMEMBER_RECORD, 0, bytes(56)))
    out["informinfo-gettable"] = st(cl.get(sac.ATTR_INFORM_INFO, 0, bytes(40), method=sac.GET_TABLE))
    cpi = cl.get(sac.ATTR_CLASS_PORT_INFO, 0, b"")
    # ClassPortInfo is not a record: compare its 72 bytes (OpenSM leaves AttributeOffset 0)
    out["cpi-get"] = None if cpi is None else (cpi.method, cpi.status, cpi.data[:72].hex())
    out["unknown-attr-dropped"] = st(cl.get(sac.ATTR_SERVICE_ASSOCIATION_RECORD, 0, bytes(80),
                                            method=sac.GET_TABLE, timeout=1.0))
    out["trace-get"] = st(cl.get(sac.ATTR_TRACE_RECORD, 0, bytes(64), method=sac.GET, timeout=1.0))
    mpr = sac.multipath_query([cl.gid], [run.gid_bytes(HOST_B)], numb_path=2)
    mask = sac.MPR_REVERSIBLE | sac.MPR_NUMB_PATH | sac.MPR_SGID_COUNT | sac.MPR_DGID_COUNT | sac.MPR_GIDS
    # GetMulti without the RMPP header a client's kernel puts on it: REQ_INVALID from both
    out["multipath-without-rmpp"] = st(cl.get(sac.ATTR_MULTIPATH_RECORD, mask, mpr, method=sac.GET_MULTI))
    out["wrong-key-dropped"] = st(cl.get(nr, 1, sac.node_record_query(run.lid(HOST_B)), sm_key=2,
                                         timeout=1.0))
    out["right-key-answered"] = st(cl.get(nr, 1, sac.node_record_query(run.lid(HOST_B)), sm_key=1))
    return out


# What OpenSM 3.3.23 answers: the test's claim, checked on OpenSM first.
STATUS_WANT = {
    "nr-get-unknown-lid": (sac.GET_RESP, sac.ST_NO_RECORDS, 0),
    "nr-get-many": (sac.GET_RESP, sac.ST_TOO_MANY, 0),
    "nr-get-one": (sac.GET_RESP, 0, 1),
    "nr-table-unknown-lid": (sac.GET_TABLE_RESP, 0, 0),
    "pr-get-unknown-dgid": (sac.GET_RESP, sac.ST_NO_RECORDS, 0),
    "pr-get-half-service-id": (sac.GET_RESP, sac.ST_INSUFFICIENT, 0),
    "pr-set-unsupported": None,  # OpenSM drops it; ibsm answers (STATUS_IBSM_DIFFERS)
    "mcmr-get-mask0": (sac.GET_RESP, 0, 1),  # one group; untrusted: one record per group
    "informinfo-gettable": (sac.GET_TABLE_RESP, 0x000C, 0),
    "cpi-get": "checked below",
    "unknown-attr-dropped": None,
    "trace-get": None,  # OpenSM does not know TraceRecord; ibsm: STATUS_IBSM_DIFFERS
    "multipath-without-rmpp": (sac.GET_MULTI_RESP, sac.ST_REQ_INVALID, 0),
    "wrong-key-dropped": None,
    "right-key-answered": (sac.GET_RESP, 0, 1),
}


# Deliberate differences, asserted for ibsm: a Set (or Delete) to an attribute that takes
# only Get/GetTable reaches OpenSM's Set dispatcher, which has no handler for it and drops
# it (log: ERR 1A02 "Dispatcher post message failed (CL_NOT_FOUND)"); ibsm answers it with
# status 0x000C (unsupported method/attribute combination, IBA 13.4.7) as OpenSM does for
# the other wrong methods (GetTable on InformInfo above), so the client learns at once.
STATUS_IBSM_DIFFERS = {
    "pr-set-unsupported": (sac.GET_RESP, 0x000C, 0),
    # ibsm serves TraceRecord (GetTraceTable, test_trace_record_follows_ibtracert), so a Get
    # is a wrong method for a known attribute (0x000C); OpenSM drops the unknown attribute.
    "trace-get": (sac.GET_RESP, 0x000C, 0),
}


def test_status_codes_and_silent_drops(pair, workdir):
    """Get matching nothing (NO_RECORDS) or several (TOO_MANY_RECORDS), an empty GetTable,
    an unsupported method, insufficient components; unknown attributes and a wrong SM_Key
    get no answer at all; the right SM_Key is answered."""
    got = {}
    for name, run in pair.items():
        with run.client(HOST_A, workdir) as cl:
            got[name] = status_probes(run, cl)
    fmt = lambda v: "no answer" if v is None else f"method {v[0]:#x} status {v[1]:#06x} records/data {v[2]}"
    cpi = got["opensm"]["cpi-get"]
    assert cpi and cpi[:2] == (sac.GET_RESP, 0) and cpi[2][:8] == "01022602", cpi  # versions 1/2, CapMask
    STATUS_WANT["cpi-get"] = cpi
    bad_ref = {k: fmt(v) for k, v in got["opensm"].items() if v != STATUS_WANT[k]}
    assert not bad_ref, f"reference opensm differs from the test's expectation: {bad_ref}"
    need_ibsm(pair)
    want = dict(got["opensm"], **STATUS_IBSM_DIFFERS)
    diff = [f"{k}: ibsm {fmt(got['ibsm'][k])}, want {fmt(v)} (opensm {fmt(got['opensm'][k])})"
            for k, v in want.items() if got["ibsm"][k] != v]
    assert not diff, "\n  ".join(["status answers differ from OpenSM:"] + diff)


def test_ipoib_broadcast_join_and_leave(pair, workdir):
    """IPoIB's broadcast join (MGID|PortGID|P_Key|JoinState, Linux ipoib_multicast.c) is answered with the
    pre-created group (Q_Key, MLID, MTU, rate...) and the leave with DeleteResp; the group
    stays (partition-created)."""
    results = {}
    for name, run in pair.items():
        with run.client(HOST_C, workdir) as cl:
            rec = bytearray(56)
            rec[0:16] = BROADCAST_MGID_BYTES
            rec[16:32] = cl.gid
            join = mcmr_join(cl, BROADCAST_MGID_BYTES)  # JoinState FullMember
            member = cl.get(sac.ATTR_MCMEMBER_RECORD, 1 | 2, bytes(rec), method=sac.GET_TABLE,
                            sm_key=1)
            leave = mcmr_join(cl, BROADCAST_MGID_BYTES, delete=True)
            after = cl.get(sac.ATTR_MCMEMBER_RECORD, 1, bytes(rec), method=sac.GET_TABLE)
        results[name] = [(r.method, r.status, [bytes(x) for x in r.records()]) if r else None
                         for r in (join, member, leave, after)]
    o = results["opensm"]
    assert o[0] and o[0][:2] == (sac.GET_RESP, 0) and len(o[0][2]) == 1, f"opensm join: {o[0]}"
    assert o[1] and len(o[1][2]) == 1 and o[1][2][0][16:32] == pair["opensm"].gid_bytes(HOST_C), \
        f"opensm member query: {o[1]}"
    assert o[2] and o[2][:2] == (sac.DELETE_RESP, 0), f"opensm leave: {o[2]}"
    assert o[3] and len(o[3][2]) == 1, f"opensm: broadcast group gone after the leave: {o[3]}"
    need_ibsm(pair)
    i = results["ibsm"]
    names = ["join (Set)", "member GetTable (trusted)", "leave (Delete)", "group after leave"]
    diff = [f"{names[k]}: ibsm {i[k]}\n      opensm {o[k]}" for k in range(4) if i[k] != o[k]]
    assert not diff, "MCMemberRecord join/leave differs from OpenSM:\n  " + "\n  ".join(diff)


def test_multipath_get_multi(pair, workdir):
    """MultiPathRecord GetMulti (one-segment RMPP request, as a client's kernel sends it):
    1x1, 1x2 and the APM form 2x2 with NumbPath 2 answer the same PathRecords as OpenSM."""
    mask = sac.MPR_REVERSIBLE | sac.MPR_SGID_COUNT | sac.MPR_DGID_COUNT | sac.MPR_GIDS
    got = {}
    for name, run in pair.items():
        got[name] = {}
        with run.client(HOST_A, workdir) as cl:
            g = run.gid_bytes
            cases = {"1x1": ([cl.gid], [g(HOST_B)], 0), "1x2": ([cl.gid], [g(HOST_B), g(HOST_C)], 0),
                     "2x2-apm": ([cl.gid, g(HOST_C)], [g(HOST_B), g(SPINE)], 2)}
            for case, (src, dst, numb) in cases.items():
                r = cl.request(SaMad(method=sac.GET_MULTI, attr_id=sac.ATTR_MULTIPATH_RECORD,
                                     comp_mask=mask | (sac.MPR_NUMB_PATH if numb else 0),
                                     data=sac.multipath_query(src, dst, numb),
                                     rmpp_flags=sac.RMPP_ACTIVE_FIRST_LAST))
                got[name][case] = None if r is None else (
                    r.method, r.attr_id, r.status,
                    [bytes(x) for k, x in enumerate(r.records()) if 56 + (k + 1) * 64 <= MAD_BYTES_CARRIED])
    o = got["opensm"]
    for case, v in o.items():
        assert v and v[:3] == (sac.GET_MULTI_RESP, sac.ATTR_PATH_RECORD, 0) and v[3], f"opensm {case}: {v}"
    need_ibsm(pair)
    diff = [f"{c}: ibsm {got['ibsm'][c] and got['ibsm'][c][:3]} "
            f"{[sac.PathRecord.decode(x) for x in (got['ibsm'][c] or (0, 0, 0, []))[3]]}\n"
            f"      opensm {v[:3]} {[sac.PathRecord.decode(x) for x in v[3]]}"
            for c, v in o.items() if got["ibsm"][c] != v]
    assert not diff, "MultiPathRecord answers differ from OpenSM:\n  " + "\n  ".join(diff)


def tracert_hops(run: Run, node: str, src: str, dst: str) -> list[tuple[int, int, int]]:
    """(NodeGUID, entry port, exit port) of every node on the route, from ibtracert (SMPs)."""
    out = run.tool(["ibtracert", str(run.lid(src)), str(run.lid(dst))], node=node).stdout
    m = re.search(r"^From \w+ \{(0x[0-9a-f]+)\} portnum (\d+)", out, re.M)
    assert m, f"ibtracert {src} {dst}:\n{out}"
    nodes = [[int(m.group(1), 16), 0, 0]]
    for a in re.finditer(r"^\[(\d+)\] -> \w+ port \{(0x[0-9a-f]+)\}\[(\d+)\]", out, re.M):
        nodes[-1][2] = int(a.group(1))
        nodes.append([int(a.group(2), 16), int(a.group(3)), 0])
    to = re.search(r"^To \w+ \{(0x[0-9a-f]+)\}", out, re.M)
    assert to, out
    nodes[-1][0] = int(to.group(1), 16)  # the CA's node GUID (the arrow names its port)
    return [tuple(n) for n in nodes]


def test_trace_record_follows_ibtracert(pair, workdir):
    """TraceRecord GetTraceTable (PathRecord template SGID/DGID) is served by ibsm, not by
    OpenSM (no answer; ibsm's extension, sa/records/trace_record.cpp): one record per node
    from source to destination with the ports ibtracert (SMPs) shows the route taking."""
    results = {}
    for name, run in pair.items():
        with run.client(HOST_A, workdir) as cl:
            results[name] = {}
            for dst in ("h1_0", HOST_B):  # same leaf (3 nodes), other half (7 nodes, cut)
                pr = sac.PathRecord(sgid=cl.gid, dgid=run.gid_bytes(dst))
                req = SaMad(method=sac.GET_TRACE_TABLE, attr_id=sac.ATTR_TRACE_RECORD,
                            comp_mask=sac.PR_SGID | sac.PR_DGID, data=pr.encode())
                results[name][dst] = cl.request(req, timeout=1.0)
    assert all(v is None for v in results["opensm"].values()), f"opensm answered: {results['opensm']}"
    dut = need_ibsm(pair)
    problems = []
    for dst, r in results["ibsm"].items():
        want = tracert_hops(dut, JUDGE, HOST_A, dst)
        if r is None or (r.method, r.status) != (sac.GET_TRACE_TABLE_RESP, 0):
            problems.append(f"to {dst}: {r}")
            continue
        recs = [sac.TraceRecord.decode(x) for x in r.records()]
        shown = [x for k, x in enumerate(recs) if 56 + (k + 1) * 48 <= MAD_BYTES_CARRIED]
        got = [(x.node_id, x.entry_port, x.exit_port) for x in shown]
        if got != want[:len(got)] or len(recs) != min(len(want), 200 // 48) or not got:
            problems.append(f"to {dst}: trace {got} ({len(recs)} records), ibtracert {want}")
        if any(x.gid_prefix != 0xFE80000000000000 for x in shown):
            problems.append(f"to {dst}: GIDPrefix {[hex(x.gid_prefix) for x in shown]}")
    assert not problems, "TraceRecord:\n  " + "\n  ".join(problems)


def mcmr_join(cl: SaClient, mgid: bytes, join_state: int = 1, delete: bool = False) -> SaMad | None:
    """IPoIB's join (or leave): MGID|PortGID|P_Key|JoinState (Linux ipoib_multicast.c)."""
    rec = bytearray(56)
    rec[0:16] = mgid
    rec[16:32] = cl.gid
    struct.pack_into(">H", rec, 40, 0xFFFF)
    rec[48] = join_state
    mask = 1 | 2 | (1 << 16) | (0 if delete else 1 << 7)
    return cl.get(sac.ATTR_MCMEMBER_RECORD, mask, bytes(rec), method=sac.DELETE if delete else sac.SET)


BROADCAST_MGID_BYTES = bytes.fromhex("ff12401bffff0000" + "00000000ffffffff")


def ibroute_mft(run: Run, lid: int) -> dict[int, set[int]]:
    """MLID -> ports of a switch's MFT, from `ibroute -M` (SMPs)."""
    out = run.tool(["ibroute", "-M", str(lid)]).stdout
    cols: dict[int, int] = {}
    table: dict[int, set[int]] = {}
    for line in out.splitlines():
        if line.strip().startswith("Ports:"):
            start = line.index(":") + 1
            cols = {m.start() + start: int(m.group()) for m in re.finditer(r"\d+", line[start:])}
        m = re.match(r"^(0x[0-9a-f]+)\s", line)
        if m and cols:
            table[int(m.group(1), 16)] = {p for i, p in cols.items() if i < len(line) and line[i] == "x"}
    return table


def sa_mft(text: str) -> dict[tuple[int, int, int], dict[int, int]]:
    """(LID, Position, Block) -> {MLID: port mask} from `saquery MFTR`."""
    out = {}
    for rec in split_records(text):
        f = {m.group(1): int(m.group(2)) for m in
             re.finditer(r"^\t\t(LID|Position|Block)\.+(\d+)$", rec, re.M)}
        out[(f["LID"], f["Position"], f["Block"])] = {
            int(a, 16): int(b, 16) for a, b in re.findall(r"^\t\t(0x[0-9a-f]+)\t(0x[0-9a-f]+)$", rec, re.M)}
    return out


def test_multicast_forwarding_records_after_joins(fresh, workdir):
    """Three hosts join the IPoIB broadcast group: both SMs program the group's MFT entries
    (polled with `ibroute -M`, deadline 15 s), and `saquery MFTR <switch>` reports exactly
    what the switch holds (each SM its own spanning tree), for the leaves of the members;
    after all leave, the group stays (partition-created) with no forwarding entries left."""
    runs = fresh()
    members = (HOST_A, HOST_B, HOST_C)
    results = {}
    for name, run in runs.items():
        r = results[name] = {"joins": [], "problems": []}
        clients = [run.client(h, workdir) for h in members]
        try:
            for cl in clients:
                j = mcmr_join(cl, BROADCAST_MGID_BYTES)
                r["joins"].append(None if j is None else (j.method, j.status))
            leaves = [run.topo.by_desc[h].ports[1].peer_desc for h in members]
            try:
                if all(j == (sac.GET_RESP, 0) for j in r["joins"]):
                    wait_for(lambda: all(ibroute_mft(run, run.lid(sw)).get(0xC000) for sw in leaves),
                             15, f"{name}: MLID 0xc000 on the members' leaf switches")
            except HarnessError as e:
                r["problems"].append(str(e))
            for sw in leaves:
                lid = run.lid(sw)
                hw = ibroute_mft(run, lid)
                sa = sa_mft(run.saquery(["MFTR", str(lid)]).stdout)
                mlids = {m: mask for recs in sa.values() for m, mask in recs.items() if mask}
                want = {m: sum(1 << p for p in ports) for m, ports in hw.items() if ports}
                if mlids != want:
                    hx = lambda d: {hex(k): hex(v) for k, v in d.items()}  # noqa: E731
                    r["problems"].append(f"{sw} (LID {lid}): SA {hx(mlids)}, ibroute -M {hx(want)}")
                r.setdefault("shape", []).append(sorted(sa))
            for cl in clients:
                lv = mcmr_join(cl, BROADCAST_MGID_BYTES, delete=True)
                r["joins"].append(None if lv is None else (lv.method, lv.status))
            g = run.saquery(["MCMR", "--mgid", BROADCAST_MGID])
            r["group-after"] = len(split_records(g.stdout))
        finally:
            for cl in clients:
                cl.close()
    o = results["opensm"]
    want_joins = [(sac.GET_RESP, 0)] * 3 + [(sac.DELETE_RESP, 0)] * 3
    assert o["joins"] == want_joins and not o["problems"] and o["group-after"] == 1, f"reference opensm: {o}"
    dut = need_ibsm(runs)
    i = results["ibsm"]
    problems = list(i["problems"])
    if i["joins"] != o["joins"]:
        problems.append(f"join/leave answers {i['joins']}, opensm {o['joins']}")
    if i.get("shape") != o.get("shape"):
        problems.append(f"MFTR records (LID, Position, Block) {i.get('shape')}, opensm {o.get('shape')}")
    if i["group-after"] != 1:
        problems.append(f"broadcast group after the leaves: {i['group-after']} records")
    assert not problems, "ibsm:\n  " + "\n  ".join(problems) + "\n" + dut.proc.tail(1500)


def service(run: Run, cl: SaClient, sid: int, lease: int, name: str) -> sac.ServiceRecord:
    return sac.ServiceRecord(service_id=sid, gid=cl.gid, pkey=0xFFFF, lease=lease,
                             key=bytes(range(16)), name=name, data8=bytes(range(1, 17)),
                             data16=tuple(range(100, 108)), data32=(1, 2, 3, 0xDEADBEEF),
                             data64=(0x1122334455667788, 0))  # [1]: past byte 224, lost


SR_SET_MASK = sac.SR_SID | sac.SR_SGID | sac.SR_PKEY | sac.SR_LEASE | sac.SR_KEY | sac.SR_NAME | \
    sac.SR_DATA_ALL
SR_RID_MASK = sac.SR_SID | sac.SR_SGID | sac.SR_PKEY


def test_service_record_set_get_delete_and_lease(fresh, workdir):
    """ServiceRecord Set (echoed), Get by ID (ServiceKey hidden from an untrusted requester),
    `saquery SR` shows it, Delete returns it and a second Delete finds nothing; a record
    with a 1-second lease disappears on its own (polled, deadline 30 s), one with an
    infinite lease stays; a Set with a wrong SM_Key is dropped."""
    runs = fresh()
    seen: dict[str, dict] = {}
    clients = {}
    try:
        for name, run in runs.items():
            cl = clients[name] = run.client(HOST_A, workdir)
            s = seen[name] = {}
            rec = service(run, cl, 0x10000000000000AB, 0xFFFFFFFF, "ibsm-test.keep")
            short = service(run, cl, 0x10000000000000CD, 1, "ibsm-test.lease")
            s["set"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_SET_MASK, rec.encode(), method=sac.SET)
            s["badkey"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_SET_MASK,
                                 service(run, cl, 0x10000000000000EF, 0xFFFFFFFF, "x").encode(),
                                 method=sac.SET, sm_key=2, timeout=1.0)
            s["get"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, rec.encode())
            s["get-trusted"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, rec.encode(), sm_key=1)
            s["saquery"] = run.saquery(["SR"])
            s["set-short"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_SET_MASK, short.encode(), method=sac.SET)
            s["t-short"] = time.monotonic()
            s["get-short"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, short.encode())
            s["rec"], s["short"] = rec, short
        # the lease expires on both (polled; OpenSM's timer runs every few seconds)
        for name, run in runs.items():
            cl, s = clients[name], seen[name]
            def gone():
                r = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, s["short"].encode())
                return r is not None and r.status == sac.ST_NO_RECORDS
            try:
                wait_for(gone, 30, f"{name}: the 1 s lease to expire")
                s["expired-after"] = round(time.monotonic() - s["t-short"])
            except HarnessError:
                s["expired-after"] = None
            s["get-kept"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, s["rec"].encode())
            s["delete"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, s["rec"].encode(),
                                 method=sac.DELETE)
            s["delete-again"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, s["rec"].encode(),
                                       method=sac.DELETE)
            s["get-deleted"] = cl.get(sac.ATTR_SERVICE_RECORD, SR_RID_MASK, s["rec"].encode())
            s["get-badkey"] = cl.get(sac.ATTR_SERVICE_RECORD, sac.SR_SID,
                                     sac.ServiceRecord(service_id=0x10000000000000EF).encode())
    finally:
        for cl in clients.values():
            cl.close()

    def view(s):
        def rec(r):
            # An error answer is judged by its status only: clients ignore its data (OpenSM
            # sends zeros with AttributeOffset 0; ibsm echoes the request record).
            if r is None:
                return None
            if r.status != 0:
                return (r.method, r.status)
            recs = [sac.ServiceRecord.decode(x) for x in r.records()]
            for x in recs:  # ServiceData64[1]: past byte 224 (MAD_BYTES_CARRIED)
                x.data64 = x.data64[:1]
            return (r.method, r.status, recs)
        keys = ["set", "badkey", "get", "get-trusted", "set-short", "get-short", "get-kept", "delete",
                "delete-again", "get-deleted", "get-badkey"]
        v = {k: rec(s[k]) for k in keys}
        v["saquery"] = (s["saquery"].returncode, normalise(s["saquery"].stdout))
        v["expired"] = s["expired-after"] is not None
        return v

    o = view(seen["opensm"])
    ref_rec = seen["opensm"]["rec"]
    # what the test claims, on OpenSM
    assert o["set"][:2] == (sac.GET_RESP, 0) and o["set"][2][0].name == ref_rec.name, o["set"]
    assert o["badkey"] is None, f"opensm answered a wrong SM_Key: {o['badkey']}"
    assert o["get"][:2] == (sac.GET_RESP, 0) and o["get"][2][0].key == bytes(16), o["get"]
    assert o["get-trusted"][2][0].key == ref_rec.key, o["get-trusted"]
    assert o["saquery"][0] == 0 and "ibsm-test.keep" in o["saquery"][1], o["saquery"]
    assert o["expired"], "opensm kept a 1 s lease for 30 s"
    assert o["get-kept"][:2] == (sac.GET_RESP, 0), o["get-kept"]
    assert o["delete"][:2] == (sac.DELETE_RESP, 0) and o["delete"][2][0].service_id == ref_rec.service_id
    assert o["delete-again"] == (sac.DELETE_RESP, sac.ST_NO_RECORDS), o["delete-again"]
    assert o["get-deleted"][1] == sac.ST_NO_RECORDS and o["get-badkey"][1] == sac.ST_NO_RECORDS
    need_ibsm(runs)
    i = view(seen["ibsm"])
    diff = [f"{k}: ibsm {i[k]}\n      opensm {o[k]}" for k in o if i[k] != o[k]]
    assert not diff, "ServiceRecord behaviour differs from OpenSM:\n  " + "\n  ".join(diff)


def link_of(run: Run, host: str) -> tuple[str, int]:
    port = run.topo.by_desc[host].ports[1]
    return port.peer_desc, port.peer_port


def test_informinfo_reports_traps_128_64_65(fresh, workdir):
    """A subscriber (InformInfo Set, all generic traps) on a host gets Reports: unlinking a
    host's cable makes its switch send trap 128, which the SM forwards, and the SM's sweep
    reports the host's GID out of service (65); relinking brings trap 64.  The subscriber
    answers every Report with ReportResp.  `saquery IIR` lists the subscription the same
    way on both.  Unsubscribing stops the Reports (a later trap 128 is not delivered)."""
    runs = fresh(["-s", "1"])  # a 1 s sweep notices the relinked port quickly
    victim = HOST_C
    results = {}
    for name, run in runs.items():
        cl = run.client(HOST_B, workdir, issm=True)
        try:
            # QPN: the subscriber's QP (GSI, 1), where Reports go and what an unsubscribe names
            sub = cl.get(sac.ATTR_INFORM_INFO, 0, sac.InformInfo(qpn=1).encode(), method=sac.SET)
            iir = run.saquery(["IIR"], node=JUDGE)
            sw, swport = link_of(run, victim)
            victim_gid = run.gid_bytes(victim)
            run.sim.command(f'Unlink "{victim}"')
            down = collect_reports(cl, lambda ns: any(n.trap_number == 65 for n in ns), 20)
            run.sim.command(f'ReLink "{victim}"')
            up = collect_reports(cl, lambda ns: any(n.trap_number == 64 for n in ns), 30)
            unsub = cl.get(sac.ATTR_INFORM_INFO, 0, sac.InformInfo(qpn=1, subscribe=0).encode(),
                           method=sac.SET)
            stats = cl.stats()
        finally:
            cl.close()
        results[name] = dict(sub=sub, iir=iir, down=down, up=up, unsub=unsub, stats=stats,
                             victim_gid=victim_gid, sw_lid=run.lid(sw))

    def judge(name):
        r = results[name]
        p = []
        if r["sub"] is None or (r["sub"].method, r["sub"].status) != (sac.GET_RESP, 0):
            p.append(f"subscribe: {r['sub']}")
        t128 = [n for n in r["down"] if n.trap_number == 128]
        if not t128 or not all(n.lid_in_details == r["sw_lid"] for n in t128[:1]):
            p.append(f"trap 128 from LID {r['sw_lid']} not reported: "
                     f"{[(n.trap_number, n.lid_in_details) for n in r['down']]}")
        t65 = [n for n in r["down"] if n.trap_number == 65]
        if not t65 or t65[0].gid_in_details != r["victim_gid"]:
            p.append(f"trap 65 for {sac.gid_str(r['victim_gid'])} not reported: "
                     f"{[(n.trap_number, sac.gid_str(n.gid_in_details)) for n in r['down']]}")
        t64 = [n for n in r["up"] if n.trap_number == 64]
        if not any(n.gid_in_details == r["victim_gid"] for n in t64):
            p.append(f"trap 64 for {sac.gid_str(r['victim_gid'])} not reported: "
                     f"{[(n.trap_number, sac.gid_str(n.gid_in_details)) for n in r['up']]}")
        if r["stats"]["report_resps"] != r["stats"]["reports"]:
            p.append(f"ReportResp not sent for every Report: {r['stats']}")
        if r["unsub"] is None or r["unsub"].status != 0:
            # OpenSM finds the subscription to remove by comparing the whole received
            # address, P_Key index included, which umad2sim never sets: its unsubscribe
            # misses now and then under the simulator (ERR 4307, 2 runs of 10 under load).
            # ibsm leaves the P_Key index out of a subscriber's identity.
            if not (name == "opensm" and r["unsub"] is not None
                    and r["unsub"].status == sac.ST_REQ_INVALID):
                p.append(f"unsubscribe: {r['unsub']}")
        return p

    ref = judge("opensm")
    assert not ref, "reference opensm: " + "; ".join(ref)
    o = results["opensm"]
    assert o["iir"].returncode == 0 and len(split_records(o["iir"].stdout)) == 1, o["iir"].stdout
    need_ibsm(runs)
    dut = judge("ibsm")
    i = results["ibsm"]
    if normalise(i["iir"].stdout) != normalise(o["iir"].stdout):
        dut.append(f"saquery IIR:\n--- ibsm\n{i['iir'].stdout}\n--- opensm\n{o['iir'].stdout}")
    assert not dut, "ibsm: " + "\n".join(dut) + "\n" + runs["ibsm"].proc.tail(2000)


def collect_reports(cl: SaClient, done, timeout: float) -> list[sac.Notice]:
    notices: list[sac.Notice] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        m = cl.report(max(0.1, deadline - time.monotonic()))
        if m is None:
            break
        notices.append(sac.Notice.decode(m.data))
        if done(notices):
            break
    return notices


# --------------------------------------------------------------------------- partitions

TENANT_A = ("h1_0", "h2_1")
TENANT_B = ("h1_1", "h3_0")


def tenant_conf(run: Run) -> str:
    def g(h):
        return f"{run.guid(h):#018x}"
    return ("# two tenants: limited in the default partition, full in their own\n"
            "Default=0x7fff, ipoib, defmember=limited: ALL, ALL_SWITCHES=full, SELF=full;\n"
            f"TenantA=0x0001: {g(TENANT_A[0])}=full, {g(TENANT_A[1])}=full;\n"
            f"TenantB=0x0002: {g(TENANT_B[0])}=full, {g(TENANT_B[1])}=full;\n")


def test_partition_filtering_between_tenants(fresh, workdir):
    """Two tenants share no partition (limited both sides in the default one): a host of
    tenant A sees the NodeRecord and PathRecords of its tenant and of switches, but nothing of
    tenant B (empty GetTable, NO_RECORDS for a Get), the same as OpenSM."""
    probe = Run.__new__(Run)  # GUIDs follow the net file: read them from any discovery
    sim = Simulator(fabric_file(workdir), workdir / "probe-sim", "probe").start()
    try:
        probe.topo = checks.discover(sim, JUDGE)
    finally:
        sim.stop()
    conf = workdir / "partitions.conf"
    conf.write_text(tenant_conf(probe))
    runs = fresh(["-P", str(conf)])
    a0, a1 = TENANT_A
    b0, b1 = TENANT_B
    queries = {
        "nr-own-tenant": (["NR", "{lid:%s}" % a1], 1),
        "nr-other-tenant": (["NR", "{lid:%s}" % b0], 0),
        "nr-switch": (["NR", "{lid:%s}" % LEAF], 1),
        "pr-own-tenant": (["-p", "--slid", "{lid:%s}" % a0, "--dlid", "{lid:%s}" % a1], 1),
        "pr-other-tenant": (["-p", "--slid", "{lid:%s}" % a0, "--dlid", "{lid:%s}" % b0], 0),
        "pr-between-others": (["-p", "--slid", "{lid:%s}" % b0, "--dlid", "{lid:%s}" % b1], 0),
        "pr-gids-other": (["--sgid-to-dgid", "{gid:%s}-{gid:%s}" % (a0, b1)], 0),
        "pr-to-sm": (["-p", "--slid", "{lid:%s}" % a0, "--dlid", "{lid:%s}" % SM_NODE], 1),
    }

    def expand(run, args):
        return [re.sub(r"\{(lid|gid):([^}]+)\}",
                       lambda m: str(run.lid(m.group(2))) if m.group(1) == "lid" else run.gid(m.group(2)),
                       a) for a in args]

    got = {}
    for name, run in runs.items():
        got[name] = {}
        for qid, (args, _) in queries.items():
            cp = run.saquery(expand(run, args), node=a0)
            got[name][qid] = (cp.returncode, normalise(cp.stdout))
        with run.client(a0, workdir) as cl:
            for dst, key in ((a1, "get-own"), (b0, "get-other")):
                r = pr_get(cl, run, dst, "libibmad")
                got[name][key] = None if r is None else (r.method, r.status, [bytes(x) for x in r.records()])
            r = pr_get(cl, run, a1, "libibmad")
            own = sac.PathRecord.decode(r.records()[0]) if r and r.records() else None
            got[name]["get-own-pkey"] = own and own.pkey
    o = got["opensm"]
    wrong = [f"{qid}: rc {o[qid][0]}, {len(split_records(o[qid][1]))} records, want {n}"
             for qid, (_, n) in queries.items() if (o[qid][0], len(split_records(o[qid][1]))) != (0, n)]
    if o["get-own"] is None or o["get-own"][1] != 0:
        wrong.append(f"get-own: {o['get-own']}")
    if o["get-other"] is None or o["get-other"][1] != sac.ST_NO_RECORDS:
        wrong.append(f"get-other: {o['get-other']}")
    if o["get-own-pkey"] != 0x8001:
        wrong.append(f"own tenant path P_Key {o['get-own-pkey']}, want 0x8001")
    assert not wrong, "reference opensm: " + "; ".join(wrong)
    need_ibsm(runs)
    diff = [f"{k}: ibsm {got['ibsm'][k]}\n      opensm {v}" for k, v in o.items() if got["ibsm"][k] != v]
    assert not diff, "partition filtering differs from OpenSM:\n  " + "\n  ".join(diff)


# --------------------------------------------------------------------------- osmtest

# Flows that finish under umad2sim, in this order on a fresh SM.  v and a (all)
# time out even against OpenSM: they validate the inventory of flow c, which holds 1 node
# and 3 paths because every GetTable arrives cut to one MAD; they are not run.  e is a
# no-op in Debian's build (the event forwarding flow needs the MTL vendor) but still checks
# ClassPortInfo.  m deletes the groups it sees in a GetTable of all groups and then checks
# that none it created is left; cut to one MAD, that table shows 3 groups, so its verdict
# depends on which groups come first: on a fresh OpenSM the first run fails (ERR 02FE) and
# a second run passes.  Both runs are recorded ("m", "m#2").
OSMTEST_FLOWS = ["c", "s", "e", "m", "m#2", "q"]


def osmtest(run: Run, flow: str, workdir: Path) -> tuple[bool, str]:
    d = workdir / f"osmtest-{run.name}"
    d.mkdir(exist_ok=True)
    inv = d / "osmtest.dat"
    try:
        cp = run_tool(run.sim, JUDGE, ["osmtest", "-f", flow[0], "-i", str(inv), "-t", "1000"],
                      timeout=30, check=False)
    except HarnessError as e:
        return False, f"hung: {e}"
    out = cp.stdout + cp.stderr
    (d / f"flow-{flow.replace('#', '')}.out").write_text(out)
    ok = cp.returncode == 0 and re.search(r'OSMTEST: TEST ".*" PASS', out) is not None
    return ok, "\n".join(out.splitlines()[-6:])


def test_osmtest_flows(fresh, workdir):
    """Every osmtest flow that passes against OpenSM passes against ibsm (each SM fresh)."""
    runs = fresh()
    results = {name: {f: osmtest(run, f, workdir) for f in OSMTEST_FLOWS} for name, run in runs.items()}
    summary = "; ".join(f"{n}: " + " ".join(f"{f}={'pass' if ok else 'FAIL'}" for f, (ok, _) in r.items())
                        for n, r in results.items())
    print(f"osmtest flows: {summary}")
    assert results["opensm"]["c"][0], f"osmtest -f c fails against opensm: {results['opensm']['c'][1]}"
    need_ibsm(runs)
    lost = [f"-f {f}: {results['ibsm'][f][1]}" for f, (ok, _) in results["opensm"].items()
            if ok and not results["ibsm"][f][0]]
    assert not lost, f"({summary})\nflows passing against opensm fail against ibsm:\n" + "\n".join(lost)
