#!/usr/bin/python3
"""Failover benchmark: a master SM is killed (SIGKILL), the standby takes over.

For every fabric and SM kind, a fresh ibsim runs; the master (priority 10) starts on
the first Hca and brings the fabric up, the standby (priority 5) starts on the second
Hca and stands by; then the master is SIGKILLed and we record, from the standby's
log (both SMs run with -d 2: a flushed line per event):
  detect   seconds from the kill to the standby leaving STANDBY (its poll timed out)
  up       seconds from the kill to the standby's SUBNET UP as the new master
  program  up - detect: the new master's sweep (discovery, LIDs, routes, programming)
  mads     SMPs the new master's first sweep sent (ibsm logs them; OpenSM does not)
  moved    ports whose LID differs between the old master's guid2lid and the new one's
Kinds: ibsm (its defaults: 200 ms polls, 2 retries), opensm (its defaults: 10 s x 4),
opensm-1s (sminfo_polling_timeout 1000, polling_retry_number 2).

  bench/failover.py [--runs 1] [--fabric FILE ...] [--kinds ibsm,opensm-1s]
  bench/failover.py --loss 20 [--fabric FILE]   # no false takeover: the master
      re-sweeps (SIGHUP) while every switch drops 20% of SMPs; the standby must stay
ibsm is $IBSM_BIN. Fabrics come from $IBSM_TOPOLOGIES or ../shared/topologies.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))

from ibsimlib import Ibsm, NetModel, OpenSM, SMProcess, Simulator, wait_for  # noqa: E402

TOPOS = Path(os.environ.get("IBSM_TOPOLOGIES") or ROOT.parent / "shared" / "topologies")
DEFAULT_FABRICS = [TOPOS / "fattree-2048.net", TOPOS / "kary-18-3-5832.net"]
LINE_TS = re.compile(r"^(\w{3} +\d+ \d\d:\d\d:\d\d) (\d{6}) ")


def line_time(line: str) -> float | None:
    """Epoch seconds of an OpenSM-format log line ('Nov 23 18:34:37 885687 ...')."""
    m = LINE_TS.match(line)
    if not m:
        return None
    year = datetime.date.today().year
    t = datetime.datetime.strptime(f"{year} {m.group(1)}", "%Y %b %d %H:%M:%S")
    return t.timestamp() + int(m.group(2)) / 1e6


def first_after(log: str, t0: float, pattern: str) -> tuple[float, str] | None:
    rx = re.compile(pattern)
    for line in log.splitlines():
        ts = line_time(line)
        if ts is not None and ts >= t0 and rx.search(line):
            return ts, line
    return None


def read_guid2lid(path: Path) -> dict[int, int]:
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0].startswith("0x"):
                out[int(parts[0], 16)] = int(parts[1], 0)
    return out


def make_sm(kind: str, sim, node, workdir: Path, priority: int) -> SMProcess:
    extra = ["-d", "2", "-p", str(priority)]
    if kind == "ibsm":
        impl = Ibsm()
    else:
        impl = OpenSM()
        extra = ["-p", str(priority)]  # OpenSM's argv() adds -d 2
        if kind == "opensm-1s":
            conf = workdir / f"opensm-{node}.conf"
            conf.write_text("sminfo_polling_timeout 1000\npolling_retry_number 2\n")
            extra = ["-F", str(conf)] + extra
    return SMProcess(impl, sim, node, workdir / f"{kind}-{node}", once=False, sweep=10,
                     extra=extra, preset_issm=False)


LEAVE_STANDBY = {"ibsm": r"SM state STANDBY -> ", "opensm": r"Entering DISCOVERING state"}
IN_STANDBY = {"ibsm": r"SM state DISCOVERING -> STANDBY", "opensm": r"Entering STANDBY state"}


def one_run(fabric: Path, kind: str, workdir: Path) -> dict:
    family = "ibsm" if kind == "ibsm" else "opensm"
    model = NetModel(fabric)
    hosts = model.cas
    sim = Simulator(fabric, workdir / "sim").start(timeout=300)
    master = make_sm(kind, sim, hosts[0], workdir, 10)
    standby = make_sm(kind, sim, hosts[1], workdir, 5)
    try:
        master.start()
        master.wait_up(900)
        standby.start()
        wait_for(lambda: re.search(IN_STANDBY[family], standby.log()), 600, "standby")
        if family == "ibsm":
            # A standby that has run for a while holds a copy of the switch tables
            # (sm/election/lft_mirror.hpp); the takeover then sends only what differs.
            wait_for(lambda: re.search(r"standby: read the LFTs", standby.log()), 600,
                     "standby's table copy")
        # Let the master's own sweep triggered by the new SM (trap 144) settle.
        time.sleep(2)
        before = read_guid2lid(master.cache_dir / "guid2lid")
        t0 = time.time()
        master.proc.send_signal(signal.SIGKILL)
        limit = 600 if kind == "opensm" else 300
        wait_for(lambda: first_after(standby.log(), t0, r"SUBNET UP"), limit, "takeover")
        log = standby.log()
        detect = first_after(log, t0, LEAVE_STANDBY[family])
        up = first_after(log, t0, r"SUBNET UP")
        mads = re.search(r"MADs sent (\d+)", up[1]) if up else None
        wait_for(lambda: (standby.cache_dir / "guid2lid").exists(), 30, "guid2lid")
        after = read_guid2lid(standby.cache_dir / "guid2lid")
        moved = sum(1 for g, lid in before.items() if g in after and after[g] != lid)
        return {"fabric": fabric.name, "kind": kind,
                "detect": detect[0] - t0 if detect else None, "up": up[0] - t0,
                "program": (up[0] - detect[0]) if detect else None,
                "mads": int(mads.group(1)) if mads else None, "moved": moved,
                "ports": len(before)}
    finally:
        master.kill()
        standby.kill()
        sim.stop()


def loss_run(fabric: Path, kind: str, loss: int, workdir: Path, lossy_path: bool) -> dict:
    """Master heavy-sweeps under SMP loss; does the standby stay STANDBY?"""
    family = "ibsm" if kind == "ibsm" else "opensm"
    model = NetModel(fabric)
    hosts = model.cas
    sim = Simulator(fabric, workdir / "sim").start(timeout=300)
    master = make_sm(kind, sim, hosts[0], workdir, 10)
    standby = make_sm(kind, sim, hosts[1], workdir, 5)
    try:
        master.start()
        master.wait_up(900)
        standby.start()
        wait_for(lambda: re.search(IN_STANDBY[family], standby.log()), 600, "standby")
        time.sleep(2)
        # Every switch loses that share of the PortInfo SMPs it answers (ibsim's
        # attribute filter; PortInfo is most of a sweep); MADs between the SMs are not
        # touched. With --loss-path every switch port drops every MAD crossing it, so
        # the SMs' own polls cross a lossy path too (each hop loses `loss` percent).
        for sw in model.switches:
            sim.command(f'Error "{sw}" {loss}' if lossy_path else f'Error "{sw}" {loss} 0x15')
        ups = master.count_up()
        errors_before = master.log().count("ERRORS DURING INITIALIZATION")
        t0 = time.time()
        master.proc.send_signal(signal.SIGHUP)
        # The sweep under loss ends in SUBNET UP or in errors (and a retry); either way
        # the standby must not have left STANDBY meanwhile, nor for 10 s after.
        wait_for(lambda: master.count_up() > ups or
                 master.log().count("ERRORS DURING INITIALIZATION") > errors_before,
                 900, "the master's sweep under loss")
        t_sweep = time.time() - t0
        time.sleep(10)
        left = first_after(standby.log(), t0, LEAVE_STANDBY[family])
        up = first_after(master.log(), t0, r"SUBNET UP|ERRORS DURING")
        retries = re.search(r"retries (\d+)", up[1]) if up else None
        return {"fabric": fabric.name, "kind": kind, "loss": loss, "sweep": t_sweep,
                "retries": int(retries.group(1)) if retries else None,
                "takeovers": 0 if left is None else 1, "master_alive": master.alive()}
    finally:
        master.kill()
        standby.kill()
        sim.stop()


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--fabric", action="append", type=Path)
    ap.add_argument("--kinds", default="ibsm,opensm-1s")
    ap.add_argument("--loss", type=int, help="percent SMP loss: no-false-takeover mode")
    ap.add_argument("--loss-path", action="store_true",
                    help="with --loss: every switch port drops, also the SMs' polls")
    args = ap.parse_args()
    fabrics = [f.resolve() for f in args.fabric] if args.fabric else DEFAULT_FABRICS
    if args.loss:
        where = "every switch port (polls too)" if args.loss_path else "switches' PortInfo answers"
        print(f"# no false takeover, {datetime.date.today()}: master re-sweeps with "
              f"{args.loss}% SMP loss on {where}")
        print("| fabric | SMs | master sweep s | its SMP retries | standby takeovers |")
        print("|---|---|---|---|---|")
        for fabric in fabrics:
            for kind in args.kinds.split(","):
                with tempfile.TemporaryDirectory(prefix="ibsm-failover-") as d:
                    r = loss_run(fabric, kind, args.loss, Path(d), args.loss_path)
                print(f"| {r['fabric']} | {kind} | {r['sweep']:.1f} | {fmt(r['retries'], 'd')} | "
                      f"{r['takeovers']} |",
                      flush=True)
        return 0
    print(f"# failover, {datetime.date.today()}: SIGKILL of the master, standby takes over")
    print("| fabric | SMs | detect s | up s | program s | MADs | LIDs moved / ports |")
    print("|---|---|---|---|---|---|---|")
    for fabric in fabrics:
        for run in range(args.runs):
            for kind in args.kinds.split(","):
                with tempfile.TemporaryDirectory(prefix="ibsm-failover-") as d:
                    r = one_run(fabric, kind, Path(d))
                print(f"| {r['fabric']} | {kind} | {fmt(r['detect'])} | {fmt(r['up'])} | "
                      f"{fmt(r['program'])} | {fmt(r['mads'], 'd')} | {r['moved']} / {r['ports']} |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
