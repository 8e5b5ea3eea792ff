"""Forged PerfMgt answers (issue 38, part 5): a GetResp with a live TID but the wrong
source or the wrong attribute modifier, sent from another host, changes no counter and
clears nothing (ibsm only).

How the forgery lands. ibsim's PMAs answer within microseconds, so a forged answer
must reach the SM ahead of the real one while the query is outstanding. The test
makes that certain instead of racing for it:

* the two forgers (sa_client.py pumps with a PerfMgt agent) attach before the SM, so
  they hold lower ibsim client slots: ibsim's loop reads one packet per client per
  turn in slot order, and a forger's packet queued at the same time as the SM's query
  is therefore delivered before the query is even answered;
* the PerfMgr's TIDs are sequential (perfmgr/perf_manager.cpp): `ibsm-ctl perfmgr`
  reports the MADs sent, so the next sweep's TIDs are known, and ibsim puts the SM's
  client slot in TID bits 48-63 of a request, which `Attached` on ibsim's console
  tells;
* with ibsim stopped (SIGSTOP) the sweep is started (`perfmgr disable`, `enable`), its
  first four queries wait in ibsim's socket, the forgers queue their answers, and
  ibsim is continued. transaction_timeout is long so that nothing times out meanwhile.

Switch GUIDs are set above the CAs' (switchguid), so the PerfMgr, which walks nodes
in GUID order, asks H1 first: PortCounters(H1 port 1) is TID S+1, PortCountersExtended
S+2, PortCounters(H2 port 1) S+3. Forger H3 answers S+3 from its own LID (wrong
source); forger H1 answers S+1 from H1's own LID but with attribute modifier 1 (right
source, wrong modifier). Both carry SymbolErrorCounter 0xF000, near saturation, which
made the PerfMgr before this change record them and clear the port (a PortCounters
Set), which perfquery then shows.

Judged from outside: the counter dump (event_db_dump_file) against perfquery from a
host that takes no part, the refusal lines (IBSM-8512, naming the claimed source LID)
in ibsm's log, and `ibsm-ctl perfmgr`'s count of refused answers.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import struct
import tempfile
from pathlib import Path

import pytest

import checks
import sa_client as sac
from ibsimlib import Ibsm, SMProcess, Simulator, run_tool, wait_for
from sa_client import SaClient
from test_ctl import CTL, ctl
from test_perfmgr import parse_dump

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "60"))
SM_NODE, JUDGE = "H5", "H4"
MOD_FORGER, SRC_FORGER = "H1", "H3"  # H1 forges its own counters; H3 forges H2's
REAL = {"H1": 3, "H2": 5}  # SymbolErrorCounter set through ibsim's console
FORGED = 0xF000

NET = "switchguid=0x900000\n\n" + 'Switch 8 "S1"\n' + "".join(
    f'[{i}] "H{i}"[1]\n' for i in range(1, 6)) + "\n" + "".join(
    f'Hca 1 "H{i}"\n[1] "S1"[{i}]\n\n' for i in range(1, 6))

ATTR_PORT_COUNTERS = 0x0012
GET_RESP = 0x81


def forged_port_counters(tid: int, port: int, attr_mod: int) -> bytes:
    """A PortCounters GetResp (IBA 13.4.3 header, 16.1.3.5 data at byte 64)."""
    hdr = struct.pack(">BBBBHHQHHI", 1, sac.CLASS_PERF, 1, GET_RESP, 0, 0, tid,
                      ATTR_PORT_COUNTERS, 0, attr_mod)
    data = bytearray(64)
    data[1] = port                                  # PortSelect
    struct.pack_into(">H", data, 2, 0xFFFF)         # CounterSelect
    struct.pack_into(">H", data, 4, FORGED)         # SymbolErrorCounter
    struct.pack_into(">H", data, 8, FORGED)         # PortRcvErrors
    return hdr + bytes(40) + bytes(data) + bytes(256 - 128)


def perf_status(sock: Path) -> dict[str, str]:
    out = ctl(sock, "perfmgr").stdout
    return {k.strip(): v.strip() for k, v in (l.split(":", 1) for l in out.splitlines() if ":" in l)}


def sent_count(sock: Path) -> int:
    return int(perf_status(sock)["MADs sent/received"].split("/")[0])


def symbol_errors(sim, lid: int) -> int:
    out = run_tool(sim, JUDGE, ["perfquery", str(lid), "1"]).stdout
    m = re.search(r"^SymbolErrorCounter:\.*(\d+)$", out, re.M)
    assert m, out
    return int(m.group(1))


def test_forged_perfmgt_answers_change_no_counter_and_clear_nothing(workdir):
    impl = Ibsm()
    reason = impl.available() or (None if os.access(CTL, os.X_OK) else f"no ibsm-ctl at {CTL}")
    if reason:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    net = workdir / "forged.net"
    net.write_text(NET)
    sim = Simulator(net, workdir, tag="forged").start()
    forgers: list[SaClient] = []
    proc = None
    stopped = False
    sockdir = None
    try:
        # The forgers first: their ibsim slots come before the SM's (see the module doc).
        for node in (MOD_FORGER, SRC_FORGER):
            forgers.append(SaClient(sim, node, workdir / f"pump-{node}", perf=True))
        dump = workdir / "counters.log"
        # A short directory: a Unix socket's path has at most 107 bytes, and pytest's
        # directories under xdist and meson's build tree come close to that.
        sockdir = Path(tempfile.mkdtemp(prefix="ibsm-forged-"))
        sock = sockdir / "ctl.sock"
        conf = workdir / "opensm.conf"
        conf.write_text("perfmgr TRUE\nperfmgr_sweep_time_s 3600\ntransaction_timeout 10000\n"
                        f"event_db_dump_file {dump}\n")
        proc = SMProcess(impl, sim, SM_NODE, workdir / "sm", once=False, sweep=30,
                         extra=["-F", str(conf), "--ctl-socket", str(sock)])
        proc.start().wait_up(UP_TIMEOUT)
        sweeps = lambda: len(re.findall(r"PerfMgr sweep \d+ done", proc.log()))  # noqa: E731
        wait_for(lambda: sweeps() >= 1, 30, "the first PerfMgr sweep", proc._exited)
        wait_for(sock.exists, 10, "the control socket", proc._exited)

        topo = checks.discover(sim, JUDGE)
        lid = {name: topo.by_desc[name].ports[1].lid for name in ("H1", "H2", "H3")}
        sm_lid = topo.by_desc[SM_NODE].ports[1].lid
        for node, value in REAL.items():
            sim.command(f'PerformanceSet "{node}"[1] PortCounters.SymbolErrorCounter={value}')
        slots = {}
        for line in sim.console("Attached").splitlines():
            m = re.match(r'Client (\d+): pid \d+ connected at "([^"]+)"', line)
            if m:
                slots.setdefault(m.group(2), int(m.group(1)))
        assert slots[SM_NODE] > max(slots[MOD_FORGER], slots[SRC_FORGER]), slots

        base = sent_count(sock)
        tid = lambda n: (slots[SM_NODE] << 48) | ((base + n) & 0xFFFFFFFF)  # noqa: E731
        dump.unlink(missing_ok=True)
        os.kill(sim.proc.pid, signal.SIGSTOP)
        stopped = True
        ctl(sock, "perfmgr", "disable")
        ctl(sock, "perfmgr", "enable")  # a sweep now
        wait_for(lambda: sent_count(sock) >= base + 4, 10, "the sweep's first 4 queries",
                 proc._exited)
        # H1, from its own LID: PortCounters(H1 port 1) with attribute modifier 1.
        forgers[0].blast([forged_port_counters(tid(1), 1, attr_mod=1)], dlid=sm_lid,
                         agent="perf", drain=0.05)
        # H3, from its own LID: PortCounters(H2 port 1), everything else right.
        forgers[1].blast([forged_port_counters(tid(3), 1, attr_mod=0)], dlid=sm_lid,
                         agent="perf", drain=0.05)
        os.kill(sim.proc.pid, signal.SIGCONT)
        stopped = False
        wait_for(lambda: sweeps() >= 2, 30, "the second PerfMgr sweep", proc._exited)
        wait_for(dump.exists, 10, "event_db_dump_file", proc._exited)
        rows = parse_dump(dump.read_text())

        guid = {name: topo.by_desc[name].guid for name in ("H1", "H2")}
        for node, value in REAL.items():
            row = rows[(guid[node], 1)]
            now = symbol_errors(sim, lid[node])
            assert now == value, \
                f"{node}'s SymbolErrorCounter reads {now}, not {value}: the port was cleared\n" \
                f"{proc.tail()}"
            assert int(row["symbol_err_cnt"]) == value, \
                f"{node} port 1: the PerfMgr holds {row['symbol_err_cnt']} symbol errors, " \
                f"the port {value} (perfquery)\n{proc.tail()}"
        log = proc.log()
        assert f"IBSM-8512: PerfMgt answer from LID {lid['H3']}" in log, proc.tail()
        assert f"IBSM-8512: PerfMgt answer from LID {lid['H1']}" in log, proc.tail()
        assert "attribute modifier differs" in log and "source LID is not" in log, proc.tail()
        assert perf_status(sock).get("answers refused", "").startswith("2 "), perf_status(sock)
    finally:
        if stopped:
            os.kill(sim.proc.pid, signal.SIGCONT)
        for f in forgers:
            f.close()
        if proc is not None:
            proc.kill()
        sim.stop()
        if sockdir is not None:
            shutil.rmtree(sockdir, ignore_errors=True)
