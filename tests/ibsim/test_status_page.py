"""The status page (/) of the metrics endpoint in a real browser (ibsm only: OpenSM
has none).

Debian's chromium loads the page headless (`--dump-dom`: the DOM after the page's
own script ran) from the SM's endpoint on a loopback port. The judges:

* the DOM has exactly one `data-guid` element per switch, and their GUIDs are the
  switches ibnetdiscover finds from a host other than the SM's;
* a port whose error counter rises on ibsim (its PerformanceSet command sets the
  PMA's counter; its Error command would drop MADs instead, after which LID-routed
  clients were seen to hang while a PerfMgr ran, test_perfmgr.py) shows as an error:
  a row of the error table, and the switch and link drawn as erring;
* the page stays small: hosts are summed per leaf.

One small fat tree by default; with IBSIM_SLOW=1 also kary-18-3-5832 (5832 hosts).
"""

from __future__ import annotations

import html.parser
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import checks
from conftest import Fabric, make_fabric
from ibsimlib import Ibsm, SMProcess, free_tcp_port, wait_for

SHARED = Path(os.environ.get("IBSM_TOPOLOGIES")
              or Path(__file__).resolve().parents[3] / "shared" / "topologies")
# name -> (fabric, seconds to SUBNET UP, slow)
FABRICS = {
    "ft2-4x4": (None, 60.0, False),
    "kary-18-3-5832": (SHARED / "kary-18-3-5832.net", 900.0, True),
}



def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read().decode()
    except (urllib.error.URLError, OSError):
        return None


class Dom(html.parser.HTMLParser):
    """Every element of a dumped DOM: (tag, attributes)."""

    def __init__(self, text: str):
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def with_attr(self, name: str) -> list[tuple[str, dict[str, str]]]:
        return [e for e in self.elements if name in e[1]]


def browser_dom(url: str, workdir: Path) -> Dom:
    """The DOM as headless chromium renders it (no network but the endpoint)."""
    binary = shutil.which("chromium")
    out = subprocess.run(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={workdir / 'chromium'}", "--virtual-time-budget=2000",
         "--dump-dom", url],
        capture_output=True, text=True, timeout=180)
    assert out.returncode == 0 and "</html>" in out.stdout, out.stderr[-2000:]
    return Dom(out.stdout)


@pytest.fixture(scope="module", params=list(FABRICS))
def page_fabric(request, fabric_dir):
    src, up_timeout, slow = FABRICS[request.param]
    if slow and os.environ.get("IBSIM_SLOW") != "1":
        pytest.skip("slow fabric: set IBSIM_SLOW=1")
    if src is None:
        return make_fabric(request.param, fabric_dir), up_timeout
    if not src.exists():
        pytest.skip(f"{src} not installed")
    return Fabric(request.param, src), up_timeout


def test_page_in_a_browser(page_fabric, sims, sm_procs, workdir):
    fabric, up_timeout = page_fabric
    impl = Ibsm()
    if impl.available():
        pytest.skip(impl.available())
    if shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (scripts/install-deps.sh)")
    sim = sims(fabric)
    conf = workdir / "opensm.conf"
    conf.write_text("perfmgr TRUE\nperfmgr_sweep_time_s 1\n")
    port = free_tcp_port()
    proc = SMProcess(impl, sim, fabric.sm_node, workdir / "sm", once=False, sweep=5,
                     extra=["-F", str(conf), "--metrics-listen", f"127.0.0.1:{port}"])
    sm_procs.append(proc)
    proc.start().wait_up(up_timeout)
    url = f"http://127.0.0.1:{port}/"
    topo = checks.discover(sim, fabric.judge)  # from a host other than the SM's
    switches = {f"0x{n.guid:016x}" for n in topo.nodes.values() if n.is_switch}
    wait_for(lambda: (fetch(url) or "").count("data-guid=") == len(switches), 120.0,
             "the page to draw every switch", proc._exited)

    dom = browser_dom(url, workdir)
    drawn = [a["data-guid"] for _, a in dom.with_attr("data-guid")]
    assert len(drawn) == len(switches), f"{len(drawn)} switch elements for {len(switches)}"
    assert set(drawn) == switches
    hosts = sum(int(a["data-hosts"]) for _, a in dom.with_attr("data-hosts"))
    assert hosts == sum(1 for n in topo.nodes.values() if not n.is_switch
                        for p in n.ports.values() if p.peer_guid is not None)
    assert len(dom.elements) < 10000, f"{len(dom.elements)} elements"
    state = [a for t, a in dom.elements if a.get("id") == "sm-state"]
    assert state, "no SM state on the page"

    # A leaf's uplink counts symbol errors: PerfMgr reads them, the page shows them.
    leaf, up = next((n, p) for n in sorted(topo.nodes.values(), key=lambda n: n.desc)
                    if n.is_switch for p in n.ports.values()
                    if p.peer_guid in topo.nodes and topo.nodes[p.peer_guid].is_switch)
    sim.command(f'PerformanceSet "{leaf.desc}"[{up.num}] PortCounters.SymbolErrorCounter=9')
    # A row of the error table (the degraded links' rows name ports the same way).
    row = re.compile(f'<tr class="err [a-z]+" data-node="0x{leaf.guid:016x}" data-port="{up.num}"')
    # Two PerfMgr sweeps at most (a 5832-host sweep on ibsim takes minutes).
    wait_for(lambda: row.search(fetch(url) or ""), 60.0 if up_timeout < 100 else 1200.0,
             "the erring port on the page", proc._exited)

    dom = browser_dom(url, workdir)
    rows = [a for t, a in dom.elements if t == "tr" and a.get("data-node") == f"0x{leaf.guid:016x}"
            and a.get("data-port") == str(up.num) and a.get("class", "").startswith("err ")]
    assert rows and rows[0]["class"].split()[0] == "err", rows
    assert rows[0]["class"].split()[1] in ("rising", "high", "past"), rows
    sw = [a for _, a in dom.with_attr("data-guid") if a["data-guid"] == f"0x{leaf.guid:016x}"]
    assert "ok" not in sw[0]["class"].split(), sw
    links = [a for t, a in dom.elements if t == "path" and "link" in a.get("class", "").split()
             and "ok" not in a["class"].split()]
    assert links, "no link drawn as erring"
    assert "IBSM-87" not in proc.log(), proc.tail()
