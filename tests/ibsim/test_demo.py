"""scripts/demo.sh leaves nothing behind, however it ends (issue 38, part 7).

The quick start runs ibsim, ibsm and a URL waiter under one shell. A terminal's Ctrl-C
sends SIGINT to the whole foreground process group; background children of a
non-interactive shell ignore it, so before, the script's cleanup had to stop them, and it
stopped at the first `kill` that failed under `set -e` (the waiter had usually exited):
ibsim kept running and /tmp/ibsm-demo.* stayed. Each test starts the demo in a session of
its own (as a terminal's job), on a small fat tree with the ibsm under test (IBSM_BIN),
ends it one way, and then checks from outside: the shell's exit status, no process of that
session left, ibsim's control socket gone from /proc/net/unix, and the demo's directory
gone.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

import gen_fabric
from ibsimlib import HarnessError, wait_for

TOP = Path(__file__).resolve().parents[2]
DEMO = TOP / "scripts" / "demo.sh"
UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30")) * 4


def session_pids(sid: int) -> list[int]:
    """Processes whose session is `sid` (field 6 of /proc/PID/stat)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry))
    return pids


class Demo:
    def __init__(self, tmp_path: Path):
        binary = os.environ.get("IBSM_BIN", "")
        if not binary or not os.access(binary, os.X_OK):
            if os.environ.get("IBSM_REQUIRE") == "1":
                pytest.fail("IBSM_REQUIRE=1 but IBSM_BIN is not an ibsm binary")
            pytest.skip("IBSM_BIN not set")
        net = tmp_path / "ft2-4x4.net"
        net.write_text(gen_fabric.ft2(radix=8, leaves=4, hosts_per_leaf=4, spines=4).render())
        self.out_path = tmp_path / "demo.out"
        self.out = open(self.out_path, "wb")
        env = dict(os.environ, IBSM_BIN=binary)
        # Its own session and process group, as a terminal's job: killpg reaches all of it.
        self.proc = subprocess.Popen(["sh", str(DEMO), str(net)], stdin=subprocess.DEVNULL,
                                     stdout=self.out, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        self.work: Path | None = None

    def output(self) -> str:
        return self.out_path.read_text(errors="replace")

    def wait_line(self, pattern: str, timeout: float) -> re.Match:
        wait_for(lambda: re.search(pattern, self.output()) or self.proc.poll() is not None,
                 timeout, f"demo output matching {pattern!r}")
        m = re.search(pattern, self.output())
        assert m, f"the demo ended ({self.proc.returncode}) before {pattern!r}:\n{self.output()}"
        return m

    def started(self) -> None:
        m = self.wait_line(r"logs and dumps in (/tmp/ibsm-demo\.\S+)", UP_TIMEOUT)
        self.work = Path(m.group(1))
        assert self.work.is_dir()

    def ended(self, timeout: float = 30) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the demo did not end within {timeout} s:\n{self.output()}")

    def left_behind(self) -> list[str]:
        left = []
        sid = self.proc.pid
        try:
            wait_for(lambda: not session_pids(sid), 10, "the demo's processes to go")
        except HarnessError:
            pass  # named below
        for pid in session_pids(sid):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            left.append(f"process {pid}: {cmd}")
        sock = f"@ibsm-demo-{self.proc.pid}:ctl"
        if sock in Path("/proc/net/unix").read_text():
            left.append(f"ibsim's socket {sock}")
        if self.work is not None and self.work.exists():
            left.append(f"directory {self.work}")
        return left

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        for pid in session_pids(self.proc.pid):  # a test that failed half-way
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
        self.out.close()


@pytest.fixture
def demo(tmp_path):
    d = Demo(tmp_path)
    yield d
    d.close()


def test_ctrl_c_after_subnet_up_leaves_nothing(demo):
    demo.started()
    demo.wait_line(r"ibsm: SUBNET UP; status page", UP_TIMEOUT)
    os.killpg(demo.proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    assert demo.ended() == 130
    assert demo.left_behind() == []


def test_ctrl_c_while_starting_leaves_nothing(demo):
    demo.started()  # ibsim up, ibsm starting: the waiter and the SM are both young
    os.killpg(demo.proc.pid, signal.SIGINT)
    assert demo.ended() == 130
    assert demo.left_behind() == []


def test_sigterm_to_the_shell_alone_leaves_nothing(demo):
    demo.started()
    demo.wait_line(r"ibsm: SUBNET UP; status page", UP_TIMEOUT)
    demo.proc.send_signal(signal.SIGTERM)  # `kill PID` of the script, not its group
    assert demo.ended() == 143
    assert demo.left_behind() == []
