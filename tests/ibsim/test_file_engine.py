"""The file routing engine (-R file -U lfts / -M lid matrix), judged by ibroute.

OpenSM routes a small fat tree first and leaves its own opensm-lfts.dump and
opensm-lid-matrix.dump (-D 0x43 --dump_files_dir). Every leaf's up-port choices in that
dump are then rotated (still valid: every spine reaches every leaf), so tables that
merely stayed from OpenSM's run cannot pass; ibsm loads the edited dump on the same
fabric (LIDs are kept) and ibroute must show exactly the dump on every switch. ibsm's
own LID matrix dump of the same fabric must equal OpenSM's, and ibsm -R file -M with
OpenSM's matrix must route every pair.

A dump of another fabric is refused with IBSM-3043 naming the file, and the SM falls
back to minhop (valid tables). OpenSM would load nothing from such a dump and leave the
fabric unrouted; the refusal is ibsm's deliberate difference, so it runs on ibsm only.
"""

from __future__ import annotations

import os
import re

import pytest

import checks
from ibsimlib import Ibsm, OpenSM, SMProcess

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "90"))
FABRIC = "ft2-parallel"  # 3 leaves x 2 hosts, 2 spines, 2 cables per leaf-spine pair

pytestmark = pytest.mark.parametrize("fabric", [FABRIC], indirect=True, scope="module")

ROW = re.compile(r"^(0x[0-9a-f]+) (\d+)(.*)$")


def _ibsm_or_skip() -> Ibsm:
    ibsm = Ibsm()
    reason = ibsm.available()
    if reason:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {reason}")
        pytest.skip(reason)
    return ibsm


def _run_once(sm, sim, fabric, workdir, sm_procs, extra, preset_issm=True) -> SMProcess:
    # After another SM ran, the fabric's ports still name its node as SM: traps can reach
    # the new process before it registered its agents, which kills it inside umad2sim
    # when IsSM is preset (see SMProcess); the SMs raise IsSM themselves anyway.
    proc = SMProcess(sm, sim, fabric.sm_node, workdir, once=True, extra=extra,
                     preset_issm=preset_issm)
    sm_procs.append(proc)
    rc = proc.start().wait_exit(ONCE_TIMEOUT)
    assert rc == 0, f"[{sm.name} -o {' '.join(extra)}] exit code {rc}\n{proc.tail()}"
    return proc


def _rotate_up_ports(dump: str, topo) -> tuple[str, dict[int, dict[int, int]]]:
    """The dump with every leaf's entries on up ports moved to its next up port, and
    the tables it describes ({switch GUID: {LID: port}})."""
    owners = topo.lid_owner()
    out, tables, sw = [], {}, None
    for line in dump.splitlines():
        m = re.match(r"Unicast lids .* guid (0x[0-9a-f]+) ", line)
        if m:
            sw = topo.nodes[int(m.group(1), 16)]
            tables[sw.guid] = {}
            up = sorted(p for p, tp in sw.ports.items() if topo.nodes[tp.peer_guid].is_switch)
            is_leaf = len(up) < len(sw.ports)
        m = ROW.match(line)
        if m and sw is not None:
            lid, port = int(m.group(1), 16), int(m.group(2))
            dst = owners.get(lid, (None, 0))[0]
            if is_leaf and port in up and dst is not None and not dst.is_switch:
                port = up[(up.index(port) + 1) % len(up)]
                line = f"{m.group(1)} {port:03d}{m.group(3)}"
            tables[sw.guid][lid] = port
        out.append(line)
    return "\n".join(out) + "\n", tables


def test_ibsm_programs_opensm_dumps(fabric, sims, sm_procs, workdir):
    ibsm = _ibsm_or_skip()
    opensm = OpenSM()
    if opensm.available():
        pytest.skip(opensm.available())
    sim = sims(fabric)
    osm = _run_once(opensm, sim, fabric, workdir / "opensm", sm_procs, ["-D", "0x43"])
    lfts_dump = (osm.dumpdir / "opensm-lfts.dump").read_text()
    matrix_dump = (osm.dumpdir / "opensm-lid-matrix.dump").read_text()
    topo = checks.discover(sim, fabric.judge)
    before = checks.read_lfts(sim, fabric.judge, topo)

    edited, want = _rotate_up_ports(lfts_dump, topo)
    assert want != before, "rotating the up ports changed nothing: the test could not fail"
    dump_file = workdir / "edited-lfts.dump"
    dump_file.write_text(edited)
    proc = _run_once(ibsm, sim, fabric, workdir / "ibsm-U", sm_procs,
                     ["-R", "file", "-U", str(dump_file), "-D", "0x43"], preset_issm=False)
    where = f"[{fabric.name} / ibsm -R file -U]"
    assert "routing engine file computed" in proc.log(), f"{where}\n{proc.tail()}"
    after_topo = checks.discover(sim, fabric.judge)
    assert after_topo.lid_owner().keys() == topo.lid_owner().keys(), f"{where} LIDs moved"
    got = checks.read_lfts(sim, fabric.judge, after_topo)
    for guid, table in want.items():
        assert got[guid] == table, f"{where} switch {topo.nodes[guid].desc}: {got[guid]} != {table}"
    problems = checks.check_lfts(after_topo, got)
    assert not problems, f"{where}\n  " + "\n  ".join(problems[:20])

    # OpenSM loads the same dump into the same tables: the expectation is OpenSM's too.
    _run_once(opensm, sim, fabric, workdir / "opensm-U", sm_procs, ["-R", "file", "-U", str(dump_file)],
              preset_issm=False)
    osm_got = checks.read_lfts(sim, fabric.judge, after_topo)
    assert osm_got == got, f"{where} OpenSM -R file -U programs other tables: {osm_got}"

    # Same fabric, same LIDs: ibsm's LID matrix dump is OpenSM's, line for line.
    ours = (proc.dumpdir / "opensm-lid-matrix.dump").read_text()
    assert ours == matrix_dump, f"{where} lid matrix differs:\n{ours}\n--- OpenSM ---\n{matrix_dump}"

    # -M alone: min-hop routes over OpenSM's hop tables.
    matrix_file = workdir / "opensm-lid-matrix.dump"
    matrix_file.write_text(matrix_dump)
    proc = _run_once(ibsm, sim, fabric, workdir / "ibsm-M", sm_procs,
                     ["-R", "file", "-M", str(matrix_file)], preset_issm=False)
    where = f"[{fabric.name} / ibsm -R file -M]"
    assert "routing engine file computed" in proc.log(), f"{where}\n{proc.tail()}"
    problems = checks.check_lfts(after_topo, checks.read_lfts(sim, fabric.judge, after_topo))
    assert not problems, f"{where}\n  " + "\n  ".join(problems[:20])


def test_dump_of_another_fabric_is_refused_loudly(fabric, sims, sm_procs, workdir):
    ibsm = _ibsm_or_skip()
    sim = sims(fabric)
    foreign = workdir / "foreign-lfts.dump"
    foreign.write_text("Unicast lids [0-2] of switch Lid 1 guid 0x00000000deadbeef ('elsewhere'):\n"
                       "0x0001 000 # Switch portguid 0x00000000deadbeef: 'elsewhere'\n"
                       "0x0002 001 # Channel Adapter portguid 0x00000000deadbef0: 'h'\n"
                       "2 lids dumped\n")
    proc = _run_once(ibsm, sim, fabric, workdir / "ibsm", sm_procs, ["-R", "file", "-U", str(foreign)])
    log = proc.log()
    where = f"[{fabric.name} / ibsm -R file -U foreign]"
    refusal = [l for l in log.splitlines() if "IBSM-3043" in l]
    assert refusal and str(foreign) in refusal[0] and "another fabric" in refusal[0], \
        f"{where}\n{proc.tail()}"
    assert "routing engine minhop computed" in log, f"{where} no fallback\n{proc.tail()}"
    topo = checks.discover(sim, fabric.judge)
    problems = checks.check_lfts(topo, checks.read_lfts(sim, fabric.judge, topo))
    assert not problems, f"{where}\n  " + "\n  ".join(problems[:20])
