"""Hostile NodeDescriptions against every operator surface (issue 38; ibsm only).

Any host's root sets its own NodeDescription, and the SM shows it everywhere. On a
fabric whose NodeDescriptions hold markup (`<script>`, `<img onerror>`), quotes,
backslashes, shell metacharacters, terminal escapes and bytes that are not UTF-8
(ibsim takes the quoted name of its net file, bytes as they are, as the node's
NodeDescription; a `"` ends it, so double quotes are left to the unit and fuzz tests):

* `/metrics` passes `promtool check metrics` (Debian's prometheus package): one bad
  byte in one label makes Prometheus reject the whole scrape;
* `/topology.svg` parses as XML and carries no element or handler from a name;
* `/` loaded in headless chromium has a DOM with no element or `on*` handler brought
  in by a name: the page's own script only, no `<img>`;
* `ibsm-ctl --json` answers about the nodes are valid JSON, its text answers, the
  log and the subnet dump are valid UTF-8 with no control character but line ends.

The judges' expectations come from the names as written, not from ibsm's code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ibsimlib import Ibsm, SMProcess, Simulator, free_tcp_port, wait_for
from test_status_page import browser_dom

UP_TIMEOUT = 60.0
CTL = os.environ.get("IBSM_CTL_BIN") or str(
    Path(os.environ.get("IBSM_BIN", "")).parent.parent / "ctl" / "ibsm-ctl")

SWITCH = b"sw<script>alert(1)</script>"
SM_HOST = b"h-sm"
JUDGE = b"h-judge"
HOSTILE = [
    b"h2 <img src=x onerror=alert(1)>",
    b"h3 'q' \\back\\ $(reboot);`id`|&>/tmp/x",
    b"h4 \xff\xfe bad \xc0\xaf \xed\xa0\x80 \x1b[31mred\x7f\x01 end",
    # 3 + 21 * 3 bytes: ibsim keeps 64, which cuts the 21st character in two.
    b"h6 " + "\u65e5\u672c\u8a9e".encode() * 7,
]
HOSTS = [SM_HOST, *HOSTILE, JUDGE]


def net_file() -> bytes:
    """One switch, every host on it: the net file as bytes (names are not all UTF-8)."""
    out = b'Switch 8 "' + SWITCH + b'"\n'
    for i, h in enumerate(HOSTS):
        out += b'[%d] "' % (i + 1) + h + b'"[1]\n'
    out += b"\n"
    for i, h in enumerate(HOSTS):
        out += b'Hca 1 "' + h + b'"\n[1] "' + SWITCH + b'"[%d]\n\n' % (i + 1)
    return out



def get(port: int, path: str) -> bytes | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
            return r.read() if r.status == 200 else None
    except (urllib.error.URLError, OSError):
        return None


def clean_text(data: bytes, what: str) -> str:
    """Valid UTF-8 with no control character but line ends and tabs."""
    text = data.decode("utf-8")  # strict: raises on a byte that is not UTF-8
    bad = sorted({hex(ord(c)) for c in text
                  if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F})
    assert not bad, f"{what} holds control characters {bad}"
    return text


def promtool_check(scrape: bytes, workdir: Path) -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail("IBSM_REQUIRE=1 but promtool is not installed (Debian's prometheus)")
        return
    (workdir / "metrics.txt").write_bytes(scrape)
    cp = subprocess.run([promtool, "check", "metrics"], input=scrape, capture_output=True,
                        timeout=60)
    assert cp.returncode == 0, (cp.stdout + cp.stderr).decode(errors="replace")[-2000:]


def markup_judge(elements: list[tuple[str, dict[str, str]]], what: str) -> None:
    for tag, attrs in elements:
        assert tag not in ("img", "iframe", "object", "embed"), f"{what}: a <{tag}> {attrs}"
        handlers = [a for a in attrs if a.lower().startswith("on")]
        assert not handlers, f"{what}: <{tag}> with {handlers}"


def test_hostile_names_reach_no_sink_raw(sm_procs, workdir):
    impl = Ibsm()
    reason = impl.available() or (None if os.access(CTL, os.X_OK)
                                  else f"ibsm-ctl not found at {CTL}")
    if reason:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {reason}")
        pytest.skip(reason)
    net = workdir / "hostile.net"
    net.write_bytes(net_file())
    sim = Simulator(net, workdir / "sim", tag="names").start()
    sockdir = Path(tempfile.mkdtemp(prefix="ibsm-names-"))
    try:
        run(impl, sim, sockdir / "ctl.sock", sm_procs, workdir)
    finally:
        sim.stop()
        shutil.rmtree(sockdir, ignore_errors=True)


def run(impl, sim, sock, sm_procs, workdir):
    conf = workdir / "opensm.conf"
    conf.write_text("perfmgr TRUE\nperfmgr_sweep_time_s 1\n")
    port = free_tcp_port()
    proc = SMProcess(impl, sim, SM_HOST.decode(), workdir / "sm", once=False, sweep=2,
                     extra=["-F", str(conf), "--metrics-listen", f"127.0.0.1:{port}",
                            "--ctl-socket", str(sock)])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)

    def every_port_scraped():
        m = get(port, "/metrics")
        # Each host port and the switch port it is cabled to, at least.
        return m if m is not None and m.count(b"infiniband_symbolerrorcounter_total{") >= \
            2 * len(HOSTS) else None
    scrape = wait_for(every_port_scraped, 60.0, "every port on /metrics", proc._exited)
    # Errors on the switch's ports toward the hostile hosts, once the PerfMgr has read
    # them: the page's error table then names both ends (the switch and the host).
    for i, h in enumerate(HOSTS):
        if h in HOSTILE:
            sim.command(f'PerformanceSet "{SWITCH.decode()}"[{i + 1}] '
                        "PortCounters.SymbolErrorCounter=9")
    promtool_check(scrape, workdir)
    metrics = clean_text(scrape, "/metrics")
    # The names are there, shown: markup as text, bad bytes as U+FFFD.
    assert 'local_name="sw<script>alert(1)</script>"' in metrics
    assert "h4 \ufffd\ufffd bad" in metrics and "red\ufffd\ufffd end" in metrics
    assert "h3 'q' \\\\back\\\\ $(reboot);`id`|&>/tmp/x" in metrics  # \ escaped as \\

    url = f"http://127.0.0.1:{port}/"
    # The error table's rows (the health, cabling and degraded rows carry data-port too).
    wait_for(lambda: (get(port, "/") or b"").count(b'<tr class="err ') >= len(HOSTILE), 60.0,
             "the erring ports on the page", proc._exited)
    page = get(port, "/")
    assert b"h2 &lt;img src=x onerror=alert(1)&gt;" in page  # named, as text

    svg = get(port, "/topology.svg")
    assert svg is not None
    root = ET.fromstring(svg)  # raises on text that is not well-formed XML
    ns = "{http://www.w3.org/2000/svg}"
    tags = [(e.tag.removeprefix(ns), dict(e.attrib)) for e in root.iter()]
    assert not [t for t, _ in tags if t == "script"], "a <script> in the SVG"
    markup_judge(tags, "/topology.svg")
    assert any((e.text or "").startswith("sw<script>") for e in root.iter(f"{ns}text"))
    # The erring hosts are named in their leaf's title: the hostile names are in it.
    titles = " ".join(e.text or "" for e in root.iter(f"{ns}title"))
    assert "h2 <img src=x onerror=alert(1)>" in titles and "h4 \ufffd" in titles, titles

    own_scripts = page.count(b"<script")
    if shutil.which("chromium") is None:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail("IBSM_REQUIRE=1 but chromium is not installed")
    else:
        dom = browser_dom(url, workdir)
        assert sum(1 for t, _ in dom.elements if t == "script") == own_scripts
        markup_judge(dom.elements, "the page's DOM")
        assert dom.with_attr("data-guid"), "no switch drawn"
    clean_text(page, "/")

    # ctl: every node by LID, as JSON and as text.
    wait_for(sock.exists, 10, "the control socket")
    seen = set()
    for lid in range(1, 3 * len(HOSTS)):
        j = subprocess.run([CTL, "--socket", str(sock), "--json", "querylid", str(lid)],
                           capture_output=True, timeout=60)
        doc = json.loads(j.stdout)  # bytes: strict UTF-8, then JSON
        if doc.get("ok"):
            seen.add(doc["result"]["node_name"])
        t = subprocess.run([CTL, "--socket", str(sock), "querylid", str(lid)],
                           capture_output=True, timeout=60)
        clean_text(t.stdout, f"ctl querylid {lid}")
    assert "h2 <img src=x onerror=alert(1)>" in seen, seen
    assert any(n.startswith("h4 \ufffd") for n in seen), seen
    for words in (["portstatus"], ["routes"], ["events", "--last", "500"]):
        j = subprocess.run([CTL, "--socket", str(sock), "--json", *words], capture_output=True,
                           timeout=60)
        assert json.loads(j.stdout)["ok"], j.stdout[-2000:]

    clean_text(proc.logfile.read_bytes(), "the log")
    clean_text((proc.dumpdir / "opensm-subnet.lst").read_bytes(), "opensm-subnet.lst")
