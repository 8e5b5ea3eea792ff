"""The Prometheus endpoint under attack (issue 38, part 1), on ibsim (ibsm only).

50 slowloris clients (each sends a header line every 2 s and never ends its request;
when the server closes one at its deadline the attacker connects again) and one
client that sends an endless header line. Meanwhile every scrape of /metrics and of
/ must be answered within 2 s, and ibsm's resident memory may grow by at most 50 MB.
cpp-httplib 0.11's two threads (before this change) were held by three such clients:
every scrape then timed out.

Only 127.0.0.1 traffic; every socket is closed however the test ends.
"""

from __future__ import annotations

import socket
import time
import urllib.error
import urllib.request

import pytest

from conftest import make_fabric
from ibsimlib import Ibsm, SMProcess, free_tcp_port, wait_for

FABRIC = "ex-2sw2path4hca"
UP_TIMEOUT = 60.0
SLOW_CLIENTS = 50
ROUNDS = 12          # one every PACE seconds: 24 s, past the server's 10 s request deadline
PACE = 2.0
ANSWER_WITHIN = 2.0
RSS_GROWTH_MB = 50
MAX_RECONNECTS = 2000  # bounds the attackers' work however the server behaves



def timed_get(port: int, path: str) -> tuple[float, int]:
    """(seconds, status); status 0 when no answer came within 10 s."""
    t0 = time.monotonic()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    except OSError:
        status = 0
    return time.monotonic() - t0, status


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise AssertionError(f"no VmRSS for {pid}")


class Attackers:
    """The slow clients and the endless header; reconnects any the server closed."""

    def __init__(self, port: int):
        self.port = port
        self.slow: list[socket.socket | None] = [None] * SLOW_CLIENTS
        self.endless: socket.socket | None = None
        self.connects = 0

    def _connect(self, first: bytes) -> socket.socket | None:
        if self.connects >= MAX_RECONNECTS:
            return None
        self.connects += 1
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(0.5)
        try:
            s.connect(("127.0.0.1", self.port))
            s.sendall(first)
        except OSError:
            s.close()
            return None
        s.setblocking(False)
        return s

    @staticmethod
    def _send(s: socket.socket | None, data: bytes) -> bool:
        if s is None:
            return False
        try:
            s.send(data)
            return True
        except BlockingIOError:
            return True  # the server does not read: it is still held
        except OSError:
            return False

    def step(self, round_no: int) -> None:
        line = f"X-Slow-{round_no}: a\r\n".encode()
        for i, s in enumerate(self.slow):
            if not self._send(s, line):
                if s is not None:
                    s.close()
                self.slow[i] = self._connect(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        chunk = b"a" * 4096
        if not self._send(self.endless, chunk):
            if self.endless is not None:
                self.endless.close()
            self.endless = self._connect(b"GET / HTTP/1.1\r\nX-Endless: " + chunk)

    def close(self) -> None:
        for s in self.slow + [self.endless]:
            if s is not None:
                s.close()
        self.slow = [None] * SLOW_CLIENTS
        self.endless = None


@pytest.fixture(scope="module")
def fabric(fabric_dir):
    return make_fabric(FABRIC, fabric_dir)


def test_slow_clients_and_an_endless_header_do_not_starve_scrapes(fabric, sims, sm_procs,
                                                                   workdir):
    impl = Ibsm()
    if impl.available():
        pytest.skip(impl.available())
    sim = sims(fabric)
    port = free_tcp_port()
    proc = SMProcess(impl, sim, fabric.sm_node, workdir / "sm", once=False, sweep=1,
                     extra=["--metrics-listen", f"127.0.0.1:{port}"])
    sm_procs.append(proc)
    proc.start().wait_up(UP_TIMEOUT)
    wait_for(lambda: timed_get(port, "/metrics")[1] == 200 and timed_get(port, "/")[1] == 200,
             30.0, "/metrics and / answered", proc._exited)
    pid = proc.proc.pid
    rss_before = rss_mb(pid)
    rss_max = rss_before

    attackers = Attackers(port)
    slowest = {"/metrics": 0.0, "/": 0.0}
    failures = []
    try:
        for r in range(ROUNDS):
            if len(failures) >= 4:
                break  # starved (the old server): no need to wait out every round
            t0 = time.monotonic()
            attackers.step(r)
            for path in slowest:
                took, status = timed_get(port, path)
                slowest[path] = max(slowest[path], took)
                if status != 200 or took >= ANSWER_WITHIN:
                    failures.append(f"round {r}: {path} status {status} after {took:.2f} s")
            rss_max = max(rss_max, rss_mb(pid))
            assert proc.alive(), proc.tail()
            rest = PACE - (time.monotonic() - t0)
            if rest > 0:
                time.sleep(rest)  # the attackers' pace, not a wait for the server
        held = sum(s is not None for s in attackers.slow)
    finally:
        attackers.close()

    print(f"slowest /metrics {slowest['/metrics']:.3f} s, / {slowest['/']:.3f} s; "
          f"VmRSS {rss_before:.1f} -> max {rss_max:.1f} MB; "
          f"{attackers.connects} attacking connections, {held} held at the end")
    assert not failures, "\n".join(failures)
    assert rss_max - rss_before < RSS_GROWTH_MB, (rss_before, rss_max)
    # The attack really held connections (not refused at connect).
    assert held >= SLOW_CLIENTS // 2, held
    # The slow requests were closed at their deadline, and said so (rate-limited).
    wait_for(lambda: "IBSM-8705" in proc.log(), 15.0, "IBSM-8705 in the log", proc._exited)
    lines = proc.log().count("IBSM-8705")
    assert lines <= 1 + ROUNDS * PACE / 10 + 1, f"{lines} IBSM-8705 lines: not rate-limited"
    # And the endpoint still serves once they are gone.
    took, status = timed_get(port, "/metrics")
    assert status == 200 and took < ANSWER_WITHIN
