"""The health policy's operator surfaces on ibsim (issue 35): on a healthy fabric
`ibsm-ctl health --json` is `[]` and the text says no port is unhealthy; `health clear
GUID PORT` is checked by ibsm-ctl (a bad port or GUID is refused with IBSM-8002 and
never reaches the SM) and a good one is carried to the SM, whose answer is shown;
/metrics has `ibsm_unhealthy_ports{condition,action}` at 0 for every pair and
`ibsm_health_checks_enabled 1`, and passes `promtool check metrics`; the status page
has its health, cabling and degraded sections.  ibsm only: OpenSM has no ctl.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest

from ibsimlib import Ibsm, SMProcess, Simulator, free_tcp_port, wait_for

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "40"))
CTL = os.environ.get("IBSM_CTL_BIN") or (str(Path(os.environ.get("IBSM_BIN", "")).parent.parent / "ctl" / "ibsm-ctl"))
DATA = Path(__file__).resolve().parents[1] / "unit" / "cabling" / "data"
SM_NODE = "h4"
LEAF1 = 0x200002  # ibsim's GUID for leaf1 in healthy.net (test_topo_diff.py)


def ctl(sock: Path, *words: str) -> subprocess.CompletedProcess:
    return subprocess.run([CTL, "--socket", str(sock), *words], capture_output=True, text=True,
                          timeout=60)


def scrape(port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return r.read().decode()


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    impl = Ibsm()
    reason = impl.available() or (None if os.access(CTL, os.X_OK) else f"ibsm-ctl not found at {CTL}")
    if reason:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {reason}")
        pytest.skip(reason)
    work = tmp_path_factory.mktemp("health-ctl")
    sim = Simulator(DATA / "healthy.net", work, tag="hctl").start()
    conf = work / "opensm.conf"
    conf.write_text("sweep_interval 2\nlog_flags 0x03\n")
    sockdir = Path(tempfile.mkdtemp(prefix="ibsm-hctl-"))
    sock = sockdir / "ctl.sock"
    port = free_tcp_port()
    proc = SMProcess(impl, sim, SM_NODE, work / "sm", once=False,
                     extra=["-F", str(conf), "--ctl-socket", str(sock),
                            "--metrics-listen", f"127.0.0.1:{port}"])
    proc.start()
    try:
        proc.wait_up(UP_TIMEOUT)
        wait_for(sock.exists, 10, "the control socket")
        yield proc, sock, port, work
    finally:
        proc.kill()
        sim.stop()
        shutil.rmtree(sockdir, ignore_errors=True)


def test_a_healthy_fabric_has_no_unhealthy_port(rig):
    proc, sock, _, _ = rig
    cp = ctl(sock, "health", "--json")  # the flag after the command
    assert cp.returncode == 0, cp
    doc = json.loads(cp.stdout)
    assert doc == {"command": "health", "ok": True, "result": []}, doc
    cp = ctl(sock, "--json", "health")
    assert json.loads(cp.stdout)["result"] == []
    text = ctl(sock, "health")
    assert text.returncode == 0, text
    assert text.stdout.startswith("0 unhealthy ports, 0 isolated (at most "), text.stdout


def test_health_clear_is_checked_in_ctl_and_answered_by_the_sm(rig):
    proc, sock, _, _ = rig
    for words in (["clear", "0x10", "255"], ["clear", "0x10"], ["clear", "leaf1", "1"],
                  ["clear", "0", "1"], ["clear", "0x10", "1", "2"]):
        cp = ctl(sock, "health", *words)
        # The parser's refusal: answered before anything is queued for the SM.
        assert cp.returncode == 1 and cp.stderr.startswith("IBSM-8002: "), (words, cp)

    # A healthy port of leaf1: the request reaches the SM, which answers that the port is
    # not unhealthy (IBSM-2807); a decimal GUID gets the same answer.
    cp = ctl(sock, "--json", "health", "clear", f"0x{LEAF1:016x}", "1")
    doc = json.loads(cp.stdout if cp.stdout.strip() else cp.stderr)
    assert doc["command"] == "health" and not doc["ok"], doc
    assert doc["error"]["id"] == "IBSM-2807", doc
    assert f"0x{LEAF1:016x} 1 is not unhealthy" in doc["error"]["message"], doc
    decimal = ctl(sock, "--json", "health", "clear", str(LEAF1), "1")
    again = json.loads(decimal.stdout if decimal.stdout.strip() else decimal.stderr)
    assert again["error"] == doc["error"], (doc, again)


def test_metrics_have_every_condition_and_action_and_pass_promtool(rig):
    proc, _, port, work = rig
    text = scrape(port, "/metrics")
    pairs = re.findall(r'^ibsm_unhealthy_ports\{condition="([a-z_]+)",action="([a-z_]+)"\} 0$',
                       text, re.M)
    assert len(pairs) == 32, pairs
    assert {c for c, _ in pairs} == {"reboot", "unresponsive", "noisy", "seterr", "flapping",
                                     "illegal", "manual", "error_rate"}
    assert {a for _, a in pairs} == {"report", "isolate", "no_discover", "disable"}
    assert re.search(r"^ibsm_health_checks_enabled 1$", text, re.M), text
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed")
    # These two families alone (promtool's lint judges the whole input).
    ours = "".join(l + "\n" for l in text.splitlines()
                   if re.match(r"(# (HELP|TYPE) )?(ibsm_unhealthy_ports|ibsm_health_checks_enabled)\b", l))
    assert ours.count("# TYPE ") == 2, ours
    cp = subprocess.run([promtool, "check", "metrics"], input=ours, capture_output=True,
                        text=True, timeout=60)
    assert cp.returncode == 0 and not (cp.stdout + cp.stderr).strip(), cp.stdout + cp.stderr


def test_status_page_has_the_health_cabling_and_degraded_sections(rig):
    proc, _, port, _ = rig
    page = scrape(port, "/")
    assert '<section id="health">' in page
    assert "0 unhealthy, 0 isolated" in page
    assert '<section id="cabling">' in page and "No topo_config_file" in page
    # Degraded links are found without a file: on ibsim every link could run at 12x.
    wait_for(lambda: 'class="deviation width_mismatch"' in scrape(port, "/"), 20,
             "the degraded links on the page")
