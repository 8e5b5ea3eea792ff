"""Helpers for running subnet managers and judges on ibsim-simulated fabrics.

Everything here observes the fabric from outside: an ibsim process simulates
the fabric, the SM under test and the judges (infiniband-diags) attach to it
through libumad2sim (LD_PRELOAD), each as a different node.  Nothing sleeps to
synchronise: every wait polls a condition against a deadline.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Callable

UMAD2SIM = os.environ.get("UMAD2SIM_LIB", "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so")
IBSIM = shutil.which("ibsim") or "/usr/bin/ibsim"
IBSIM_LIMITS = ["-N", "20000", "-S", "4000", "-P", "200000"]
POLL = 0.02  # polling period for deadline waits (s)


class HarnessError(AssertionError):
    """A harness-level failure (simulator or tool misbehaving); shown as a test failure."""


def wait_for(cond: Callable[[], object], timeout: float, what: str,
             fail_early: Callable[[], str | None] | None = None):
    """Poll cond() until it returns a truthy value or the deadline passes."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if fail_early is not None:
            msg = fail_early()
            if msg:
                raise HarnessError(f"while waiting for {what}: {msg}")
        if time.monotonic() >= deadline:
            raise HarnessError(f"timed out after {timeout:.1f}s waiting for {what}")
        time.sleep(POLL)


_LIVE: set[subprocess.Popen] = set()


def _spawn(argv, **kw) -> subprocess.Popen:
    """Popen in a new session, remembered so that even an aborted run leaves nothing behind."""
    proc = subprocess.Popen(argv, start_new_session=True, **kw)
    _LIVE.add(proc)
    return proc


@atexit.register
def _kill_leftovers() -> None:
    for proc in list(_LIVE):
        _kill_group(proc, grace=0.5)


# SIGTERM (meson test's timeout, a CI runner, `kill`) ends the run as Ctrl-C does: pytest
# tears the fixtures down and the atexit hook above runs, so no simulator or SM (each in
# a session of its own, out of reach of a signal to the run's group) outlives it.
if (threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL):
    signal.signal(signal.SIGTERM, signal.default_int_handler)


def _kill_group(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """Terminate a process started with start_new_session=True and its group."""
    if proc.poll() is not None:
        _LIVE.discard(proc)
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(5)
    _LIVE.discard(proc)


def free_tcp_port() -> int:
    """A loopback TCP port free at this moment (the SM under test binds it next)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- net files

@dataclasses.dataclass
class NetNode:
    name: str
    kind: str  # "Switch" | "Hca"
    nports: int
    peers: dict[int, tuple[str, int]] = dataclasses.field(default_factory=dict)

    @property
    def is_switch(self) -> bool:
        return self.kind == "Switch"


class NetModel:
    """What the net file says the fabric is (the expectation for the judges)."""

    _hdr = re.compile(r'^(Switch|Hca|Ca)\s+(\d+)\s+"([^"]+)"')
    _port = re.compile(r'^\[(\d+)\]\s*(?:\([0-9a-fA-Fx]+\))?\s*"([^"]+)"\s*(?:\[(\d+)\])?')

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.nodes: dict[str, NetNode] = {}
        self.order: list[str] = []
        cur = None
        for raw in self.path.read_text().splitlines():
            line = raw.strip()
            m = self._hdr.match(line)
            if m:
                kind = "Switch" if m.group(1) == "Switch" else "Hca"
                cur = NetNode(m.group(3), kind, int(m.group(2)))
                self.nodes[cur.name] = cur
                self.order.append(cur.name)
                continue
            m = self._port.match(line)
            if m and cur is not None:
                cur.peers[int(m.group(1))] = (m.group(2), int(m.group(3) or 1))
                continue
            if not line.startswith("#") and not line.startswith("@"):
                cur = None if not line else cur
        for n in self.nodes.values():
            for p, (rn, rp) in n.peers.items():
                back = self.nodes[rn].peers.get(rp)
                if back != (n.name, p):
                    raise ValueError(f"{self.path}: {n.name}[{p}] -> {rn}[{rp}] not listed back")

    @property
    def cas(self) -> list[str]:
        return [n for n in self.order if not self.nodes[n].is_switch]

    @property
    def switches(self) -> list[str]:
        return [n for n in self.order if self.nodes[n].is_switch]

    def links(self) -> set[tuple[tuple[str, int], tuple[str, int]]]:
        out = set()
        for n in self.nodes.values():
            for p, (rn, rp) in n.peers.items():
                out.add(tuple(sorted(((n.name, p), (rn, rp)))))
        return out

    def copy(self) -> "NetModel":
        c = object.__new__(NetModel)
        c.path = self.path
        c.order = list(self.order)
        c.nodes = {k: NetNode(v.name, v.kind, v.nports, dict(v.peers)) for k, v in self.nodes.items()}
        return c

    def unlink(self, name: str, port: int | None = None) -> None:
        """Mirror of the ibsim console's Unlink."""
        node = self.nodes[name]
        for p in ([port] if port is not None else list(node.peers)):
            rn, rp = node.peers.pop(p)
            del self.nodes[rn].peers[rp]

    def reachable_from(self, start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            n = todo.pop()
            for rn, _ in self.nodes[n].peers.values():
                if rn not in seen:
                    seen.add(rn)
                    todo.append(rn)
        return seen


# --------------------------------------------------------------------------- simulator

class Simulator:
    """One ibsim process with a unique socket name, its console on a pipe."""

    def __init__(self, netfile: str | Path, workdir: str | Path, tag: str = "sim"):
        self.netfile = Path(netfile)
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.sockname = f"ibsm-{tag}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.log = self.workdir / f"ibsim-{self.sockname}.out"
        self.proc: subprocess.Popen | None = None
        self._logfh = None

    def env(self, node: str | None = None, issm: bool = False) -> dict[str, str]:
        env = dict(os.environ)
        env["IBSIM_SOCKNAME"] = self.sockname
        env["LD_PRELOAD"] = UMAD2SIM
        env.pop("SIM_HOST", None)
        env.pop("SIM_SET_ISSM", None)
        if node is not None:
            env["SIM_HOST"] = node
        if issm:
            env["SIM_SET_ISSM"] = "1"
        return env

    def _socket_bound(self) -> bool:
        # /proc/net/unix shows abstract names as "@name" padded with "@" for NULs.
        want = re.compile("@" + re.escape(self.sockname) + r":ctl@*$")
        with open("/proc/net/unix") as fh:
            return any(want.search(line.rstrip()) for line in fh)

    def _dead(self) -> str | None:
        if self.proc is not None and self.proc.poll() is not None:
            return f"ibsim exited with {self.proc.returncode}; output:\n{self.output()[-2000:]}"
        return None

    def start(self, timeout: float = 60.0) -> "Simulator":
        env = dict(os.environ, IBSIM_SOCKNAME=self.sockname)
        env.pop("LD_PRELOAD", None)
        self._logfh = open(self.log, "wb")
        # The console stays on a pipe we keep open: ibsim spins on EOF of its console.
        self.proc = _spawn([IBSIM, "-s", *IBSIM_LIMITS, str(self.netfile)],
                           stdin=subprocess.PIPE, stdout=self._logfh,
                           stderr=subprocess.STDOUT, cwd=self.workdir, env=env)
        wait_for(lambda: "Network simulator ready." in self.output() and self._socket_bound(),
                 timeout, f"ibsim on {self.netfile.name} to become ready", self._dead)
        return self

    def output(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def console(self, cmd: str, timeout: float = 10.0) -> str:
        """Run one console command; returns what ibsim printed for it."""
        assert self.proc is not None and self.proc.stdin is not None
        before = self.output()
        nprompts = before.count("sim> ")
        self.proc.stdin.write((cmd + "\n").encode())
        self.proc.stdin.flush()
        out = wait_for(lambda: (lambda o: o if o.count("sim> ") > nprompts else None)(self.output()),
                       timeout, f"ibsim console to process {cmd!r}", self._dead)
        return out[len(before):]

    def command(self, cmd: str, timeout: float = 10.0) -> str:
        """Console command that must succeed (ibsim reports errors as '# ...' lines)."""
        out = self.console(cmd, timeout)
        errors = [l for l in out.splitlines() if l.startswith("#")]
        if errors:
            raise HarnessError(f"ibsim console {cmd!r} failed: {' '.join(errors)}")
        return out

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
            except OSError:
                pass
            _kill_group(self.proc)
        if self._logfh is not None:
            self._logfh.close()
            self._logfh = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class ToolError(HarnessError):
    pass


def run_tool(sim: Simulator, node: str, argv: list[str], timeout: float = 60.0,
             check: bool = True) -> subprocess.CompletedProcess:
    """Run a libibumad program as `node` of the simulated fabric."""
    cwd = sim.workdir / "clients"
    cwd.mkdir(exist_ok=True)
    env = sim.env(node)
    # meson's test runner sets MALLOC_PERTURB_ for our binaries; the judges do not get it.
    # osmtest's SA layer reads the status of a MAD wrapper its receive thread may already
    # have freed (osm_vendor_ibumad_sa.c: __osmv_send_sa_req after the sync wait), and with
    # the freed bytes perturbed every such read is IB_UNKNOWN_ERROR: `osmtest -f q` failed
    # 20 runs of 20 against OpenSM and ibsim alike with MALLOC_PERTURB_=114, none without.
    env.pop("MALLOC_PERTURB_", None)
    try:
        cp = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired as e:
        raise ToolError(f"{' '.join(argv)} (as {node}) hung for {timeout}s") from e
    finally:
        for d in cwd.glob("sys-*"):
            shutil.rmtree(d, ignore_errors=True)
    if check and cp.returncode != 0:
        raise ToolError(f"{' '.join(argv)} (as {node}) exited {cp.returncode}:\n"
                        f"{cp.stdout[-1500:]}\n{cp.stderr[-1500:]}")
    return cp


# --------------------------------------------------------------------------- parsers

@dataclasses.dataclass
class TPort:
    num: int
    guid: int
    lid: int  # 0 for switch external ports
    peer_guid: int | None = None
    peer_port: int | None = None
    peer_desc: str | None = None


@dataclasses.dataclass
class TNode:
    kind: str  # "Switch" | "Ca"
    guid: int
    desc: str
    nports: int
    lid: int = 0  # switch port 0
    ports: dict[int, TPort] = dataclasses.field(default_factory=dict)

    @property
    def is_switch(self) -> bool:
        return self.kind == "Switch"


class Topology:
    """ibnetdiscover's view of the fabric."""

    _sw = re.compile(r'^Switch\s+(\d+)\s+"S-([0-9a-f]+)"\s*#\s*"(.*)"\s+\w+\s+port 0 lid (\d+) lmc (\d+)')
    _ca = re.compile(r'^(?:Ca|Rt)\s+(\d+)\s+"[HR]-([0-9a-f]+)"\s*#\s*"(.*)"')
    _swport = re.compile(r'^\[(\d+)\]\s+"[SHR]-([0-9a-f]+)"\[(\d+)\](?:\(([0-9a-f]+)\))?\s*#\s*"(.*?)"\s+lid (\d+)')
    _caport = re.compile(r'^\[(\d+)\]\(([0-9a-f]+)\)\s+"[SHR]-([0-9a-f]+)"\[(\d+)\](?:\([0-9a-f]+\))?\s*#\s*lid (\d+) lmc \d+ "(.*?)"')

    def __init__(self, text: str):
        self.text = text
        self.nodes: dict[int, TNode] = {}
        cur = None
        for line in text.splitlines():
            line = line.strip()
            m = self._sw.match(line)
            if m:
                cur = TNode("Switch", int(m.group(2), 16), m.group(3), int(m.group(1)), int(m.group(4)))
                self.nodes[cur.guid] = cur
                continue
            m = self._ca.match(line)
            if m:
                cur = TNode("Ca", int(m.group(2), 16), m.group(3), int(m.group(1)))
                self.nodes[cur.guid] = cur
                continue
            if cur is None or not line.startswith("["):
                continue
            if cur.is_switch:
                m = self._swport.match(line)
                if m:
                    p = int(m.group(1))
                    cur.ports[p] = TPort(p, cur.guid, 0, int(m.group(2), 16), int(m.group(3)), m.group(5))
            else:
                m = self._caport.match(line)
                if m:
                    p = int(m.group(1))
                    cur.ports[p] = TPort(p, int(m.group(2), 16), int(m.group(5)), int(m.group(3), 16),
                                         int(m.group(4)), m.group(6))
        self.by_desc: dict[str, TNode] = {}
        for n in self.nodes.values():
            self.by_desc.setdefault(n.desc, n)

    def end_ports(self) -> list[tuple[TNode, int, int]]:
        """(node, port number, lid) for every CA port that is connected and every switch port 0."""
        out = []
        for n in self.nodes.values():
            if n.is_switch:
                out.append((n, 0, n.lid))
            else:
                out.extend((n, p.num, p.lid) for p in n.ports.values())
        return out

    def lid_owner(self) -> dict[int, tuple[TNode, int]]:
        return {lid: (n, p) for n, p, lid in self.end_ports() if lid}

    def port_guid(self, node: TNode, port: int) -> int:
        return node.guid if node.is_switch else node.ports[port].guid


def parse_sminfo(text: str) -> dict:
    m = re.search(r"sm lid (\d+) sm guid (0x[0-9a-f]+), activity count (\d+) priority (\d+) "
                  r"state (\d+) (\w+)", text)
    if not m:
        raise ToolError(f"cannot parse sminfo output: {text!r}")
    return {"lid": int(m.group(1)), "guid": int(m.group(2), 16), "activity": int(m.group(3)),
            "priority": int(m.group(4)), "state": int(m.group(5)), "state_name": m.group(6)}


def parse_ibroute(text: str) -> dict[int, int]:
    """LID -> output port from `ibroute <switch lid>`."""
    out = {}
    for m in re.finditer(r"^(0x[0-9a-f]+)\s+(\d+)(?:\s|$)", text, re.M):
        out[int(m.group(1), 16)] = int(m.group(2))
    return out


def parse_ibtracert(text: str) -> dict:
    """Last hop of `ibtracert SLID DLID`: {'guid','port','lid_lo','lid_hi','desc'}."""
    m = re.search(r'^To \w+ \{(0x[0-9a-f]+)\} portnum (\d+) lid (\d+)-(\d+) "(.*)"', text, re.M)
    if not m:
        raise ToolError(f"ibtracert did not reach a destination:\n{text}")
    return {"guid": int(m.group(1), 16), "port": int(m.group(2)), "lid_lo": int(m.group(3)),
            "lid_hi": int(m.group(4)), "desc": m.group(5)}


def parse_iblinkinfo(text: str) -> dict[tuple[str, int], tuple[str, str]]:
    """(node description, port) -> (logical state, physical state), from `iblinkinfo`."""
    out = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^(?:Switch|CA|Router):\s+(?:0x[0-9a-f]+\s+)?(.*):\s*$", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"^\s*(?:0x[0-9a-f]+\s+)?\d+\s+(\d+)\[\s*\]\s+==\((.*?)\)==>", line)
        if m and cur is not None:
            st = re.search(r"(Down|Initialize|Init|Armed|Active)\s*/\s*(\w+)", m.group(2))
            out[(cur, int(m.group(1)))] = (st.group(1), st.group(2)) if st else ("?", m.group(2))
    return out


# --------------------------------------------------------------------------- SMs under test

class SM:
    """A subnet manager implementation driven through OpenSM-compatible flags."""

    name = "sm"

    def __init__(self, binary: str):
        self.binary = binary

    def argv(self, *, once: bool, logfile: Path, dumpdir: Path, sweep: int | None,
             extra: list[str]) -> list[str]:
        argv = [self.binary]
        if once:
            argv.append("-o")
        if sweep is not None:
            argv += ["-s", str(sweep)]
        argv += ["-f", str(logfile), "--dump_files_dir", str(dumpdir)]
        return argv + list(extra)

    def available(self) -> str | None:
        """None if runnable, else the reason it is not."""
        if not self.binary:
            return f"{self.name}: no binary configured"
        if not (os.path.isfile(self.binary) and os.access(self.binary, os.X_OK)):
            return f"{self.name}: {self.binary} is not an executable file"
        return None

    def __repr__(self):
        return self.name


class OpenSM(SM):
    name = "opensm"

    def __init__(self, binary: str | None = None):
        super().__init__(binary or shutil.which("opensm") or "/usr/sbin/opensm")

    def argv(self, **kw):
        a = super().argv(**kw)
        return a[:1] + ["-d", "2"] + a[1:]  # -d 2: flush the log after every message


class Ibsm(SM):
    name = "ibsm"

    def __init__(self, binary: str | None = None):
        super().__init__(binary if binary is not None else os.environ.get("IBSM_BIN", ""))

    def available(self):
        if not self.binary:
            return "ibsm: IBSM_BIN is not set"
        return super().available()


class SMProcess:
    """One run of an SM under test attached to a simulated node."""

    def __init__(self, sm: SM, sim: Simulator, node: str, workdir: Path, *, once: bool,
                 cache_dir: Path | None = None, sweep: int | None = None,
                 extra: list[str] | None = None, preset_issm: bool = True):
        self.sm, self.sim, self.node, self.once = sm, sim, node, once
        # SIM_SET_ISSM: umad2sim raises IsSM as soon as the process attaches, before it
        # has registered its agents; with another SM on the fabric that SM's SMInfo
        # query can then reach a class nobody registered, which kills the process
        # inside umad2sim.  Both SMs open issm themselves, so two-SM tests turn it off.
        self.preset_issm = preset_issm
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.cache_dir = Path(cache_dir) if cache_dir else self.workdir / "cache"
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.logfile = self.workdir / f"{sm.name}.log"
        self.outfile = self.workdir / f"{sm.name}.out"
        self.dumpdir = self.workdir / "dump"
        self.dumpdir.mkdir(exist_ok=True)
        self.argv = sm.argv(once=once, logfile=self.logfile, dumpdir=self.dumpdir, sweep=sweep,
                            extra=extra or [])
        self.proc: subprocess.Popen | None = None
        self.t_start = 0.0
        self.rusage = None
        self._outfh = None

    def describe(self) -> str:
        return f"{self.sm.name} on {self.node} of {self.sim.netfile.name}"

    def start(self, terminal: int | None = None) -> "SMProcess":
        """`terminal`: a pty's slave fd for stdin and stdout (OpenSM's `console local`);
        stderr still goes to the output file."""
        env = self.sim.env(self.node, issm=self.preset_issm)
        env["OSM_CACHE_DIR"] = str(self.cache_dir)
        env["OSM_TMP_DIR"] = str(self.workdir)
        self._outfh = open(self.outfile, "wb")
        self.t_start = time.monotonic()
        self.proc = _spawn(self.argv, cwd=self.workdir, env=env,
                           stdin=subprocess.DEVNULL if terminal is None else terminal,
                           stdout=self._outfh if terminal is None else terminal,
                           stderr=self._outfh if terminal is not None else subprocess.STDOUT)
        return self

    def log(self) -> str:
        try:
            return self.logfile.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def tail(self, n: int = 3000) -> str:
        out = self.outfile.read_text(errors="replace") if self.outfile.exists() else ""
        return f"--- log tail ---\n{self.log()[-n:]}\n--- stdout/stderr tail ---\n{out[-n:]}"

    def count_up(self) -> int:
        return self.log().count("SUBNET UP")

    def _exited(self) -> str | None:
        if self.proc is not None and self.proc.poll() is not None:
            return f"{self.describe()} exited with {self.proc.returncode}\n{self.tail()}"
        if not self.sim.alive():
            return "ibsim died"
        return None

    def wait_up(self, timeout: float, count: int = 1) -> float:
        """Wait until the log shows `count` SUBNET UP lines; returns seconds since start."""
        wait_for(lambda: self.count_up() >= count, timeout,
                 f"SUBNET UP #{count} from {self.describe()}",
                 None if self.once else self._exited)
        return time.monotonic() - self.t_start

    def wait_exit(self, timeout: float) -> int:
        assert self.proc is not None
        try:
            _, status, ru = _wait4(self.proc, timeout)
        except subprocess.TimeoutExpired:
            raise HarnessError(f"{self.describe()} did not exit within {timeout}s\n{self.tail()}")
        self.rusage = ru
        return self.proc.returncode

    def stop(self, sig: int = signal.SIGTERM, within: float = 1.0) -> tuple[float, int]:
        """Send sig; returns (seconds until exit, exit code).  Kills it if it hangs."""
        assert self.proc is not None
        t0 = time.monotonic()
        self.proc.send_signal(sig)
        try:
            _wait4(self.proc, max(within, 0.1) + 9.0)
        except subprocess.TimeoutExpired:
            pass
        took = time.monotonic() - t0
        self.kill()
        return took, self.proc.returncode

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc, grace=1.0)
        if self._outfh is not None:
            self._outfh.close()
            self._outfh = None


def _wait4(proc: subprocess.Popen, timeout: float):
    """Wait for proc with a deadline, collecting its rusage (for ru_maxrss)."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.returncode is not None:
            return proc.pid, proc.returncode, None
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return pid, status, ru
        if time.monotonic() >= deadline:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        time.sleep(min(0.005, timeout))
