"""The cabling check on ibsim (issue 35's acceptance): ibsm with topo_config_file set to
the healthy fabric's ibnetdiscover output (tests/unit/cabling/data/, the cabling
helper's files), on a fabric started from a net file with two host cables swapped on
leaf1, h3 moved from leaf2[1] to leaf1[5], leaf2-spine2 removed and leaf1-spine1 at 1x
(ibsim's w=1). `ibsm-ctl topo_diff --json` must list exactly those deviations, each
once; the healthy fabric against its own file lists none, and a broken file read on
SIGHUP is refused with its ID and file:line while the last good one stays.

The CSV (NVIDIA's topoconfig) gives no widths, so the check expects the best both ends
support; ibsim advertises 1x-12x on every port, so the CSV tests run the same net files
with every link at QDR and 12x (s=4, w=12) but the 1x one.  ibsm only: OpenSM has no ctl.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from ibsimlib import Ibsm, SMProcess, Simulator, free_tcp_port, wait_for

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "40"))
CTL = os.environ.get("IBSM_CTL_BIN") or (str(Path(os.environ.get("IBSM_BIN", "")).parent.parent / "ctl" / "ibsm-ctl"))
DATA = Path(__file__).resolve().parents[1] / "unit" / "cabling" / "data"
SM_NODE = "h4"  # on leaf2[2] in both net files: none of the faults touches it


def _end(guid: int, port: int, name: str) -> dict:
    return {"guid": f"0x{guid:016x}", "port": port, "name": name}


def _dev(kind: str, local: dict, remote: dict, expected: str, found: str) -> dict:
    return {"kind": kind, "local_guid": local["guid"], "local_port": local["port"],
            "local_name": local["name"], "remote_guid": remote["guid"],
            "remote_port": remote["port"], "remote_name": remote["name"],
            "expected": expected, "found": found}


# ibsim numbers the nodes of both files alike: spines 0x200000/1, leaves 0x200002/3,
# hosts 0x100000, 0x100002, 0x100004, 0x100006.  Sorted by local GUID and port.
SPINE1, SPINE2 = _end(0x200000, 1, "spine1"), _end(0x200001, 2, "spine2")
EXPECTED = [
    _dev("wrong_node", _end(0x100004, 1, "h3"), _end(0x200002, 5, "leaf1"), '"leaf2"[1]', '"leaf1"[5]'),
    _dev("width_mismatch", SPINE1, _end(0x200002, 3, "leaf1"), "4x", "1x"),
    _dev("missing_link", SPINE2, _end(0x200003, 4, "leaf2"), '"leaf2"[4]', "no link"),
    _dev("wrong_port", _end(0x200002, 1, "leaf1"), _end(0x100002, 1, "h2"), '"leaf1"[2]', '"leaf1"[1]'),
    _dev("wrong_port", _end(0x200002, 2, "leaf1"), _end(0x100000, 1, "h1"), '"leaf1"[1]', '"leaf1"[2]'),
]


def ctl(sock: Path, *words: str) -> str:
    cp = subprocess.run([CTL, "--socket", str(sock), *words], capture_output=True, text=True, timeout=60)
    assert cp.returncode == 0, f"ibsm-ctl {' '.join(words)} exited {cp.returncode}\n{cp.stdout}\n{cp.stderr}"
    return cp.stdout


def topo_diff(sock: Path) -> list:
    doc = json.loads(ctl(sock, "topo_diff", "--json"))  # the flag after the command
    assert doc["ok"] and doc["command"] == "topo_diff", doc
    return doc["result"]


@contextmanager
def running(netfile: Path, topo_file: Path, work: Path):
    impl = Ibsm()
    reason = impl.available() or (None if os.access(CTL, os.X_OK) else f"ibsm-ctl not found at {CTL}")
    if reason:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {reason}")
        pytest.skip(reason)
    sim = Simulator(netfile, work, tag="topo").start()
    conf = work / "opensm.conf"
    conf.write_text(f"sweep_interval 2\nlog_flags 0x03\ntopo_config_file {topo_file}\n")
    sockdir = Path(tempfile.mkdtemp(prefix="ibsm-topo-"))
    sock = sockdir / "ctl.sock"
    port = free_tcp_port()
    proc = SMProcess(impl, sim, SM_NODE, work / "sm", once=False,
                     extra=["-F", str(conf), "--ctl-socket", str(sock),
                            "--metrics-listen", f"127.0.0.1:{port}"])
    proc.start()
    try:
        proc.wait_up(UP_TIMEOUT)
        wait_for(sock.exists, 10, "the control socket")
        # The check runs right after SUBNET UP is logged; its result is in the next snapshot.
        wait_for(lambda: "deviations from" in ctl(sock, "topo_diff"), 10, "the first cabling check")
        yield proc, sock, conf, port
    finally:
        proc.kill()
        sim.stop()
        shutil.rmtree(sockdir, ignore_errors=True)


def test_faulty_fabric_lists_each_fault_once(tmp_path):
    with running(DATA / "faulty.net", DATA / "healthy.ibnetdiscover", tmp_path) as (proc, sock, _, port):
        got = topo_diff(sock)
        assert got == EXPECTED, json.dumps(got, indent=1)
        text = ctl(sock, "topo_diff")
        assert text.splitlines()[0].startswith("5 deviations from topo_config_file "), text
        assert ('wrong_node     0x0000000000100004[1] "h3" - 0x0000000000200002[5] "leaf1": '
                'expected "leaf2"[1], found "leaf1"[5]') in text.splitlines(), text
        # The same list in the event stream, once.
        events = json.loads(ctl(sock, "--json", "events", "--last", "1000"))["result"]["events"]
        topo = [e for e in events if e["type"] == "topology_deviation"]
        assert len(topo) == 1, topo
        assert topo[0]["id"] == 310
        assert topo[0]["fields"]["deviations"] == 5
        assert topo[0]["fields"]["kinds"] == "missing_link=1,wrong_port=2,wrong_node=1,width_mismatch=1"
        # Degraded links are found without the file: on ibsim every link could be 12x.
        degraded = json.loads(ctl(sock, "--json", "degraded"))["result"]
        assert any(d["local_guid"] == SPINE1["guid"] and d["found"] == "1x" for d in degraded), degraded
        page_shows_the_deviations(port, tmp_path, degraded)


def page_shows_the_deviations(port: int, work: Path, degraded: list) -> None:
    """The status page, as headless chromium renders it, has one row per deviation
    (its kind, local end) in the cabling section and one per degraded link."""
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (scripts/install-deps.sh)")
    from test_status_page import browser_dom
    dom = browser_dom(f"http://127.0.0.1:{port}/", work)
    rows = [a for t, a in dom.elements if t == "tr" and a.get("class", "").startswith("deviation ")]
    got = sorted((a["class"].split()[1], a["data-node"], int(a["data-port"])) for a in rows)
    want = sorted([(d["kind"], d["local_guid"], d["local_port"]) for d in EXPECTED]
                  + [(d["kind"], d["local_guid"], d["local_port"]) for d in degraded])
    assert got == want, (got, want)
    sections = {a.get("id") for t, a in dom.elements if t == "section"}
    assert {"health", "cabling", "degraded"} <= sections, sections


def test_healthy_fabric_lists_none_and_a_broken_file_keeps_the_last_good(tmp_path):
    topo = tmp_path / "topo.ibnetdiscover"
    shutil.copy(DATA / "healthy.ibnetdiscover", topo)
    with running(DATA / "healthy.net", topo, tmp_path) as (proc, sock, conf, _):
        assert topo_diff(sock) == []
        assert ctl(sock, "topo_diff").startswith("0 deviations from topo_config_file")
        # A line no format has, read on SIGHUP: refused with file:line, the good one stays.
        lines = topo.read_text().splitlines()
        lines.insert(9, "Swtich 8 \"S-0000000000200009\"")
        topo.write_text("\n".join(lines) + "\n")
        up = proc.count_up()
        proc.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "IN ERROR" in ctl(sock, "topo_diff"), 20, "the reload's refusal")
        text = ctl(sock, "topo_diff")
        assert "the last good one is in force: IBSM-9102" in text, text
        assert f"{topo}:10" in text, text
        assert "IBSM-9102" in proc.log() and f"{topo}:10" in proc.log()
        wait_for(lambda: proc.count_up() > up, UP_TIMEOUT, "the heavy sweep SIGHUP asks for")
        assert topo_diff(sock) == []


def _all_links_at_best(src: Path, dst: Path) -> Path:
    """`src` with every link at QDR (s=4) and, where it names no width, at 12x (w=12):
    each link then runs at the best both ends advertise on ibsim (1x-12x, SDR-QDR). The
    CSV states neither, and the check then expects that best, as iblinkinfo's "Could be"
    does."""
    out = []
    for line in src.read_text().splitlines():
        if line.startswith("["):
            line += " s=4" if "w=" in line else " w=12 s=4"
        out.append(line)
    dst.write_text("\n".join(out) + "\n")
    return dst


def test_the_same_faults_against_nvidias_csv(tmp_path):
    # The same four faults, the cabling given as NVIDIA's topoconfig CSV: the same five
    # deviations; the width expected is now the best both ends support (12x on ibsim).
    net = _all_links_at_best(DATA / "faulty.net", tmp_path / "faulty12.net")
    with running(net, DATA / "healthy.csv", tmp_path) as (proc, sock, _, _):
        got = topo_diff(sock)
        want = [dict(d, expected="12x") if d["kind"] == "width_mismatch" else d for d in EXPECTED]
        assert got == want, json.dumps(got, indent=1)


def test_the_healthy_fabric_against_its_csv_lists_none(tmp_path):
    net = _all_links_at_best(DATA / "healthy.net", tmp_path / "healthy12.net")
    with running(net, DATA / "healthy.csv", tmp_path) as (proc, sock, _, _):
        assert topo_diff(sock) == []
        assert json.loads(ctl(sock, "--json", "degraded"))["result"] == []
