"""The Prometheus endpoint on ibsim (ibsm only: OpenSM has none).

One running fabric with the PerfMgr on and --metrics-listen on a loopback port. The
scrape is parsed with python3-prometheus-client's parser, as Prometheus would read
it, and judged against the fabric (every port of every node, with both ends of its
link) and against perfquery (the data counters never run ahead of the port).

With Debian's prometheus installed, a real Prometheus server scrapes the endpoint
every second and must see it up for 10 scrapes in a row.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import urllib.parse
import urllib.error
import urllib.request

import pytest

import checks
from conftest import make_fabric
from ibsimlib import Ibsm, SMProcess, run_tool, wait_for

prometheus_parser = pytest.importorskip("prometheus_client.parser")

FABRIC = "ex-2sw2path4hca"
UP_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port: int, path: str = "/metrics") -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, ""


def families(text: str) -> dict:
    return {f.name: f for f in prometheus_parser.text_string_to_metric_families(text)}


@pytest.fixture(scope="module")
def fabric(fabric_dir):
    return make_fabric(FABRIC, fabric_dir)


def test_scrape_parses_and_matches_the_fabric(fabric, sims, sm_procs, workdir):
    impl = Ibsm()
    if impl.available():
        pytest.skip(impl.available())
    sim = sims(fabric)
    conf = workdir / "opensm.conf"
    conf.write_text("perfmgr TRUE\nperfmgr_sweep_time_s 1\n")
    port = free_port()
    proc = SMProcess(impl, sim, fabric.sm_node, workdir / "sm", once=False, sweep=1,
                     extra=["-F", str(conf), "--metrics-listen", f"127.0.0.1:{port}"])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    topo = checks.discover(sim, fabric.judge)

    def perfmgr_swept_twice():
        status, text = scrape(port)
        if status != 200:
            return False
        fam = families(text)
        sweeps = fam.get("ibsm_perfmgr_sweeps")  # the parser drops _total from counters
        return sweeps is not None and sweeps.samples[0].value >= 2
    wait_for(perfmgr_swept_twice, 45.0, "two PerfMgr sweeps on /metrics", proc._exited)

    status, text = scrape(port)
    assert status == 200
    fam = families(text)
    state = {s.labels["state"]: s.value for s in fam["ibsm_sm_state"].samples}
    assert state["master"] == 1 and sum(state.values()) == 1, state
    assert fam["ibsm_nodes"].samples[0].value == len(topo.nodes)
    assert fam["ibsm_switches"].samples[0].value == sum(n.is_switch for n in topo.nodes.values())
    heavy = [s for s in fam["ibsm_sweep_duration_seconds"].samples
             if s.name.endswith("_count") and s.labels["kind"] == "heavy"]
    assert heavy and heavy[0].value >= 1

    # Every port of every node, labelled as the infiniband-exporter labels it.
    xmit = fam["infiniband_portxmitdata"]
    assert xmit.type == "counter"
    got = {(int(s.labels["local_guid"], 16), int(s.labels["local_port"])): s
           for s in xmit.samples if s.name == "infiniband_portxmitdata_total"}
    for n in topo.nodes.values():
        for p in n.ports.values():
            s = got.get((n.guid, p.num))
            assert s is not None, f"{hex(n.guid)} port {p.num} missing from /metrics"
            assert s.labels["component"] == ("switch" if n.is_switch else "ca")
            if p.peer_guid is not None:
                assert int(s.labels["remote_guid"], 16) == p.peer_guid, s.labels
                assert int(s.labels["remote_port"]) == p.peer_port, s.labels
    for name in ("infiniband_portrcverrors", "infiniband_symbolerrorcounter",
                 "infiniband_portxmitwait", "infiniband_portrcvpkts"):
        assert len(fam[name].samples) == len(got), name
    assert fam["infiniband_width"].type == "gauge" and fam["infiniband_width"].samples

    # A counter never runs ahead of the port: perfquery read after the scrape sees at
    # least what the scrape said (a CA port: its own LID).
    ca = next(n for n in topo.nodes.values() if not n.is_switch)
    cap = next(iter(ca.ports.values()))
    status, text = scrape(port)
    scraped = [s.value for s in families(text)["infiniband_portxmitdata"].samples
               if int(s.labels["local_guid"], 16) == ca.guid
               and int(s.labels["local_port"]) == cap.num][0]
    out = run_tool(sim, fabric.judge, ["perfquery", "-x", str(cap.lid), str(cap.num)]).stdout
    pq = int(next(l for l in out.splitlines() if l.startswith("PortXmitData")).split(".")[-1])
    assert scraped <= pq, f"/metrics {scraped} > perfquery {pq}"

    # Read-only: other paths are not served.
    assert scrape(port, "/admin")[0] == 404
    assert "IBSM-87" not in proc.log(), proc.tail()

    prometheus_scrapes_ten_times(port, workdir, proc)


def prometheus_scrapes_ten_times(port: int, workdir, proc) -> None:
    binary = shutil.which("prometheus")
    if binary is None:
        return  # Debian's prometheus is optional (large): the parser checks above stand
    web = free_port()
    cfg = workdir / "prometheus.yml"
    cfg.write_text("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                   "scrape_configs:\n  - job_name: ibsm\n    static_configs:\n"
                   f"      - targets: ['127.0.0.1:{port}']\n")
    log = open(workdir / "prometheus.log", "w")
    server = subprocess.Popen(
        [binary, f"--config.file={cfg}", f"--storage.tsdb.path={workdir / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{web}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        def query(q: str):
            url = f"http://127.0.0.1:{web}/api/v1/query?" + urllib.parse.urlencode({"query": q})
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    res = json.load(r)["data"]["result"]
            except (OSError, ValueError, KeyError):
                return None
            return float(res[0]["value"][1]) if res else None

        def ten_up_scrapes():
            assert server.poll() is None, (workdir / "prometheus.log").read_text()[-2000:]
            n = query('count_over_time(up{job="ibsm"}[2m])')
            return n is not None and n >= 10
        wait_for(ten_up_scrapes, 60.0, "10 Prometheus scrapes", proc._exited)
        assert query('min_over_time(up{job="ibsm"}[2m])') == 1.0, "a scrape failed"
        assert query('count(infiniband_portxmitdata_total)') is not None
    finally:
        server.terminate()
        server.wait(10)
        log.close()


def test_port_in_use_stops_the_start(fabric, sims, sm_procs, workdir):
    """An operator who asked for metrics gets them or a clear stop (IBSM-8702)."""
    impl = Ibsm()
    if impl.available():
        pytest.skip(impl.available())
    sim = sims(fabric)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen(1)
        port = held.getsockname()[1]
        proc = SMProcess(impl, sim, fabric.sm_node, workdir / "sm-busy", once=False, sweep=1,
                         extra=["--metrics-listen", f"127.0.0.1:{port}"])
        sm_procs.append(proc)
        proc.start()
        assert proc.wait_exit(30.0) == 1
    assert "IBSM-8702" in proc.tail(), proc.tail()
    assert proc.count_up() == 0
