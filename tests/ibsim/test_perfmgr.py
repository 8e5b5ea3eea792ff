"""PerfMgr on ibsim (ibsm only: OpenSM writes its counter dump only on a console
command, and the dump is what these checks read).

One running fabric per rm_nodes setting; each test reads event_db_dump_file (OpenSM's
"mach" format, parsed here as OpenSM's readers do: tab-separated, a header line per
node) and judges it with perfquery, which reads the same PMAs.

Error counters: ibsim raises them only by dropping MADs (its Error command), after
which LID-routed clients were seen to hang while an SM's PerfMgr ran; the error
counter checks therefore live in the unit tests on the fake fabric
(tests/unit/perfmgr: ErrorIncreasesAreLoggedWithBothEndsAndAccumulated and
neighbours). Here: the data and packet counters, which every MAD moves.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import checks
from conftest import make_fabric
from ibsimlib import Ibsm, SMProcess, run_tool, wait_for

FABRIC = "ex-2sw2path4hca"
UP_TIMEOUT = 60.0

COLUMNS = ["Name", "GUID", "Active", "Port", "Last Reset", "Last Error Update",
           "Last Data Update", "symbol_err_cnt", "link_err_recover", "link_downed", "rcv_err",
           "rcv_rem_phys_err", "rcv_switch_relay_err", "xmit_discards", "xmit_constraint_err",
           "rcv_constraint_err", "link_int_err", "buf_overrun_err", "vl15_dropped", "xmit_wait",
           "xmit_data", "rcv_data", "xmit_pkts", "rcv_pkts", "unicast_xmit_pkts",
           "unicast_rcv_pkts", "multicast_xmit_pkts", "multicast_rcv_pkts"]


def parse_dump(text: str) -> dict[tuple[int, int], dict[str, str]]:
    """(node GUID, port) -> row, as OpenSM's dump readers split it."""
    rows = {}
    header = None
    for line in text.splitlines():
        if not line.strip():
            continue
        cols = line.split("\t")
        if cols[0] == "Name":
            header = cols
            assert header == COLUMNS, f"dump header {header}"
            continue
        assert header is not None and len(cols) == len(header), f"bad dump line {line!r}"
        row = dict(zip(header, cols))
        rows[(int(row["GUID"], 16), int(row["Port"]))] = row
    return rows


class Running:
    def __init__(self, sims, sm_procs, fabric, workdir, rm_nodes: bool):
        impl = Ibsm()
        reason = impl.available()
        if reason:
            pytest.skip(reason)
        self.fabric = fabric
        self.sim = sims(fabric)
        self.dump = workdir / "counters.log"
        conf = workdir / "opensm.conf"
        conf.write_text("perfmgr TRUE\nperfmgr_sweep_time_s 1\n"
                        f"perfmgr_rm_nodes {'TRUE' if rm_nodes else 'FALSE'}\n"
                        f"event_db_dump_file {self.dump}\n")
        self.proc = SMProcess(impl, self.sim, fabric.sm_node, workdir / "sm", once=False,
                              sweep=1, extra=["-F", str(conf)])
        sm_procs.append(self.proc)
        self.proc.start().wait_up(UP_TIMEOUT)
        self.topo = checks.discover(self.sim, fabric.judge)

    def sweeps(self) -> int:
        return len(re.findall(r"PerfMgr sweep \d+ done", self.proc.log()))

    def wait_sweeps(self, n: int, timeout: float = 30.0) -> None:
        start = self.sweeps()
        wait_for(lambda: self.sweeps() >= start + n, timeout,
                 f"{n} PerfMgr sweeps", self.proc._exited)

    def rows(self) -> dict[tuple[int, int], dict[str, str]]:
        # ibsm writes the dump on a thread of its own just after "PerfMgr sweep N done".
        wait_for(lambda: self.dump.exists(), 10, "event_db_dump_file", self.proc._exited)
        return parse_dump(self.dump.read_text())

    def perfquery(self, lid: int, port: int) -> dict[str, int]:
        out = run_tool(self.sim, self.fabric.judge, ["perfquery", "-x", str(lid), str(port)]).stdout
        vals = {}
        for line in out.splitlines():
            m = re.match(r"^(\w+):\.*(\d+)$", line.strip())
            if m:
                vals[m.group(1)] = int(m.group(2))
        return vals


@pytest.fixture(scope="module")
def fabric(fabric_dir):
    return make_fabric(FABRIC, fabric_dir)


def _ports(topo):
    """(GUID, port, LID to ask) of every monitored port: switch ports at port 0's LID."""
    out = []
    for n in topo.nodes.values():
        for p in n.ports.values():
            out.append((n.guid, p.num, n.lid if n.is_switch else p.lid))
    return out


def test_counters_track_perfquery_and_dump_is_readable(fabric, sims, sm_procs, workdir):
    run = Running(sims, sm_procs, fabric, workdir, rm_nodes=True)
    run.wait_sweeps(2)
    rows = run.rows()
    ports = _ports(run.topo)
    missing = [(hex(g), p) for g, p, _ in ports if (g, p) not in rows]
    assert not missing, f"ports missing from the dump: {missing}\n{run.proc.tail()}"
    for row in rows.values():
        assert row["Active"] == "TRUE"
    # Up to 20 random ports: the PerfMgr's totals never exceed what the port reads
    # just after, and within two sweeps they reach it.
    pick = random.Random(30).sample(ports, min(20, len(ports)))
    names = {"xmit_data": "PortXmitData", "rcv_data": "PortRcvData",
             "xmit_pkts": "PortXmitPkts", "rcv_pkts": "PortRcvPkts"}
    before = run.rows()
    read = {(g, p): run.perfquery(lid, p) for g, p, lid in pick}
    # The sweep running while perfquery read may have read before it; the dump read
    # after the next line may still be that sweep's (written just after its line).
    run.wait_sweeps(3)
    after = run.rows()
    for g, p, lid in pick:
        for col, iba in names.items():
            pq = read[(g, p)][iba]
            assert int(before[(g, p)][col]) <= pq, \
                f"{hex(g)} port {p} {col}: PerfMgr {before[(g, p)][col]} > perfquery {pq}"
            assert int(after[(g, p)][col]) >= pq, \
                f"{hex(g)} port {p} {col}: PerfMgr {after[(g, p)][col]} still below {pq} " \
                f"two sweeps after perfquery read it"
    assert "IBSM-85" not in run.proc.log(), run.proc.tail()


@pytest.mark.parametrize("rm_nodes", [True, False])
def test_unlinked_node_drops_out_or_stays(fabric, sims, sm_procs, workdir, rm_nodes):
    run = Running(sims, sm_procs, fabric, workdir, rm_nodes=rm_nodes)
    run.wait_sweeps(1)
    victim = fabric.judge
    node = run.topo.by_desc[victim]
    assert any(g == node.guid for g, _ in run.rows())
    ups = run.proc.count_up()
    run.sim.command(f'Unlink "{victim}"')
    run.proc.wait_up(UP_TIMEOUT, ups + 1)
    run.wait_sweeps(3)
    rows = {k: v for k, v in run.rows().items() if k[0] == node.guid}
    if rm_nodes:
        assert not rows, f"{victim} still in the dump with perfmgr_rm_nodes TRUE"
    else:
        assert rows and all(r["Active"] == "FALSE" for r in rows.values()), \
            f"{victim} should stay, inactive, with perfmgr_rm_nodes FALSE: {rows}"
    assert "IBSM-8509" in run.proc.log()
