#!/usr/bin/python3
"""Fabric health benchmark (issue 35's two targets) on a big fabric under ibsim.

Mode `isolate` (the default): ibsm (daemon, -d 2, `hm_sw_flapping_action isolate`,
`hm_num_flapping_sweeps 2`, light sweeps every --sweep s) brings the fabric up; then one
leaf-spine link (reroute.py's pick_link: redundant, away from the SM's and the judge's
leaf) is flapped on ibsim's console (Unlink, wait for SUBNET UP, ReLink, wait for SUBNET
UP, as tests/ibsim/test_health.py does) until the SM logs IBSM-2804 (the decision).
Reported, from the SM's log timestamps:
  decision -> up   the IBSM-2804 line to the SUBNET UP line of the sweep that routed
                   without the link (its LFT blocks, then activation and MFTs: an upper
                   bound on "routes leave it")
and, from opensm-lfts.dump (log_flags 0x40: every switch's whole table, written after
SUBNET UP) before the first flap and once the link is back and isolated:
  used         (switch, LID) entries whose route crossed the link before (the walk
               from that switch to the LID over the old tables passes the link)
  changed      entries that differ between the two dumps
  changed, not used   changed entries whose route did not cross the link (target: 0)
  still on link       entries that forward into the link afterwards (target: 0)

Mode `cpu`: the SM's CPU time (utime + stime of /proc/PID/stat, 10 ms ticks, and the
sum of its threads' /proc/PID/task/*/schedstat, ns) per light sweep with
hm_unhealthy_ports_checks TRUE and FALSE. One ibsim and one SM; the two settings
alternate window by window (the conf file rewritten and SIGHUP; each window starts
--settle s after the SUBNET UP that follows) and a window is --window s of light sweeps
every --sweep s, counted by the `sweeps` counter of `ibsm-ctl --json status`.

  bench/health_isolate.py [--fabric FILE] [--mode isolate|cpu] [--sweep 1] [-A]
  bench/health_isolate.py --mode cpu [--windows 6] [--window 30]
ibsm is $IBSM_BIN, ibsm-ctl $IBSM_CTL_BIN (default: next to it). Fabrics come from
$IBSM_TOPOLOGIES or ../shared/topologies.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))
sys.path.insert(0, str(ROOT / "bench"))

from failover import first_after, line_time  # noqa: E402
from ibsimlib import Ibsm, NetModel, SMProcess, Simulator, wait_for  # noqa: E402
from reroute import DEFAULT_FABRIC, pick_link  # noqa: E402

SETTLE_TIMEOUT = 300.0
LFT_HEAD = re.compile(r"^Unicast lids \[.*\] of switch Lid \d+ guid \S+ \('(.*)'\):$")
LFT_ENTRY = re.compile(r"^0x([0-9a-fA-F]+) (\d+) [:#]")


def ctl_bin() -> str:
    env = os.environ.get("IBSM_CTL_BIN")
    if env:
        return env
    return str(Path(os.environ.get("IBSM_BIN", "")).resolve().parent.parent / "ctl" / "ibsm-ctl")


def read_lfts(path: Path, switches: int) -> dict[str, dict[int, int]] | None:
    """The dump as {switch description: {LID: port}}; None while it is incomplete."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    out: dict[str, dict[int, int]] = {}
    cur = None
    done = 0
    for line in text.splitlines():
        m = LFT_ENTRY.match(line)
        if m and cur is not None:
            cur[int(m.group(1), 16)] = int(m.group(2))
            continue
        m = LFT_HEAD.match(line)
        if m:
            cur = out.setdefault(m.group(1), {})
        elif line.endswith("lids dumped"):
            done += 1
    return out if done == switches and len(out) == switches else None


def wait_lfts(path: Path, after: float, switches: int) -> dict[str, dict[int, int]]:
    """The dump written after `after` (epoch s), once complete."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_mtime >= after:
            size = path.stat().st_size
            time.sleep(1.0)
            if path.stat().st_size == size and (t := read_lfts(path, switches)) is not None:
                return t
        time.sleep(0.5)
    raise SystemExit(f"{path}: no complete dump after {after}")


def crossing(model: NetModel, lfts: dict[str, dict[int, int]], a: str, pa: int, b: str,
             pb: int) -> set[tuple[str, int]]:
    """(switch, LID) entries whose route, followed over `lfts`, crosses a[pa]-b[pb]."""
    used: set[tuple[str, int]] = set()
    lids = set()
    for t in lfts.values():
        lids.update(t)
    for lid in lids:
        memo: dict[str, bool] = {}

        def walk(sw: str, hops: int = 0) -> bool:
            if sw in memo:
                return memo[sw]
            memo[sw] = False  # a loop never crosses through this entry
            port = lfts.get(sw, {}).get(lid)
            r = False
            if port is not None and port != 0 and port != 255:
                if (sw, port) in ((a, pa), (b, pb)):
                    r = True
                else:
                    peer = model.nodes[sw].peers.get(port)
                    if peer and model.nodes[peer[0]].is_switch and hops < 64:
                        r = walk(peer[0], hops + 1)
            memo[sw] = r
            return r
        for sw in lfts:
            if walk(sw):
                used.add((sw, lid))
    return used


def isolate_run(fabric: Path, workdir: Path, args) -> dict:
    model = NetModel(fabric)
    sm_node, judge = model.cas[0], model.cas[-1]
    a, pa = pick_link(model, sm_node, judge)
    b, pb = model.nodes[a].peers[pa]
    nsw = len(model.switches)
    conf = workdir / "opensm.conf"
    conf.write_text("log_flags 0x43\nhm_sw_flapping_action isolate\nhm_num_flapping_sweeps 2\n"
                    f"hm_num_flapping_sweeps_window {args.flap_window}\n")
    sim = Simulator(fabric, workdir / "sim", "hisolate").start(timeout=300)
    extra = ["-d", "2", "-F", str(conf)] + (["-A"] if args.A else [])
    proc = SMProcess(Ibsm(), sim, sm_node, workdir / "sm", once=False, sweep=args.sweep,
                     extra=extra)
    dump = proc.dumpdir / "opensm-lfts.dump"
    try:
        proc.start()
        bring_up = proc.wait_up(900)
        before = wait_lfts(dump, 0, nsw)
        steps = []
        decided = None
        for _ in range(args.tries):
            for verb in ("Unlink", "ReLink"):
                ups = proc.count_up()
                t = time.time()
                sim.command(f'{verb} "{a}"[{pa}]')
                proc.wait_up(SETTLE_TIMEOUT, ups + 1)
                up = first_after(proc.log(), t, r"SUBNET UP")
                blocks = re.search(r"LFT blocks (\d+)", up[1]) if up else None
                steps.append(f"{verb} -> SUBNET UP {up[0] - t:.2f} s, LFT blocks "
                             f"{blocks.group(1) if blocks else '?'}" if up else verb)
                if "IBSM-2804" in proc.log():
                    decided = verb
                    break
            if decided:
                break
        if not decided:
            raise SystemExit(f"no IBSM-2804 after {args.tries} flaps of {a}[{pa}]\n{proc.tail()}")
        if decided == "Unlink":  # decided while the link was down: bring it back, isolated
            ups = proc.count_up()
            sim.command(f'ReLink "{a}"[{pa}]')
            proc.wait_up(SETTLE_TIMEOUT, ups + 1)
        log = proc.log()
        dline = first_after(log, 0, r"IBSM-2804")
        td = dline[0]
        up = first_after(log, td, r"SUBNET UP")
        last_up = [line_time(ln) for ln in log.splitlines()
                   if "SUBNET UP" in ln and line_time(ln) is not None][-1]
        after = wait_lfts(dump, last_up - 1, nsw)
        used = crossing(model, before, a, pa, b, pb)
        changed = {(sw, lid) for sw, t in after.items() for lid, p in t.items()
                   if before.get(sw, {}).get(lid) != p}
        changed |= {(sw, lid) for sw, t in before.items() for lid in t if lid not in after.get(sw, {})}
        still = sum(1 for sw, p in ((a, pa), (b, pb)) for q in after.get(sw, {}).values() if q == p)
        return {
            "link": f"{a}[{pa}]-{b}[{pb}]", "bring_up": bring_up, "steps": "; ".join(steps),
            "decided_after": decided, "decision_to_up": up[0] - td if up else None,
            "decision_line": dline[1].strip(), "up_line": up[1].strip() if up else None,
            "entries": sum(len(t) for t in before.values()), "used": len(used),
            "changed": len(changed), "changed_not_used": len(changed - used),
            "used_not_changed": len(used - changed), "still_on_link": still,
        }
    finally:
        proc.kill()
        sim.stop()
        if args.logs is not None:
            args.logs.mkdir(parents=True, exist_ok=True)
            (args.logs / "health_isolate.log").write_text(proc.log())


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(utime + stime in clock ticks, the threads' on-CPU ns of /proc/PID/task/*/schedstat),
    both in seconds: the ticks are 10 ms coarse, schedstat is exact but misses threads
    that ended."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    ns = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ns += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return ticks, ns / 1e9


def ctl_status(sock: Path) -> dict:
    cp = subprocess.run([ctl_bin(), "--socket", str(sock), "--json", "status"],
                        capture_output=True, text=True, timeout=60)
    return json.loads(cp.stdout)["result"]


def cpu_run(fabric: Path, workdir: Path, args) -> list[dict]:
    model = NetModel(fabric)
    sm_node = model.cas[0]
    conf = workdir / "opensm.conf"

    def write_conf(checks: bool) -> None:
        conf.write_text(f"log_flags 0x03\nhm_unhealthy_ports_checks {'TRUE' if checks else 'FALSE'}\n")
    write_conf(True)
    sock = Path(tempfile.mkdtemp(prefix="ibsm-hcpu-")) / "ctl.sock"
    sim = Simulator(fabric, workdir / "sim", "hcpu").start(timeout=300)
    proc = SMProcess(Ibsm(), sim, sm_node, workdir / "sm", once=False, sweep=args.sweep,
                     extra=["-d", "2", "-F", str(conf), "--ctl-socket", str(sock)])
    rows = []
    try:
        proc.start()
        proc.wait_up(900)
        wait_for(sock.exists, 30, "the control socket")
        for w in range(args.windows):
            checks = w % 2 == 0
            if w > 0:
                write_conf(checks)
                ups = proc.count_up()
                proc.proc.send_signal(signal.SIGHUP)
                proc.wait_up(SETTLE_TIMEOUT, ups + 1)
            time.sleep(args.settle)
            s0, c0, t0 = ctl_status(sock), cpu_seconds(proc.proc.pid), time.monotonic()
            time.sleep(args.window)
            s1, c1, t1 = ctl_status(sock), cpu_seconds(proc.proc.pid), time.monotonic()
            sweeps = s1["sweeps"] - s0["sweeps"]
            heavy = s1["heavy_sweeps"] - s0["heavy_sweeps"]
            cpu, exact = c1[0] - c0[0], c1[1] - c0[1]
            rows.append({"checks": checks, "sweeps": sweeps, "heavy": heavy, "cpu": cpu,
                         "exact": exact, "wall": t1 - t0,
                         "per_sweep_ms": 1000 * exact / sweeps if sweeps else None,
                         "load": os.getloadavg()[0]})
            r = rows[-1]
            print(f"| {w + 1} | {'TRUE' if checks else 'FALSE'} | {sweeps} ({heavy} heavy) | "
                  f"{cpu:.2f} | {exact:.4f} | {r['wall']:.1f} | "
                  f"{r['per_sweep_ms']:.3f} | {r['load']:.1f} |", flush=True)
        return rows
    finally:
        proc.kill()
        sim.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fabric", type=Path, default=DEFAULT_FABRIC)
    ap.add_argument("--mode", choices=("isolate", "cpu"), default="isolate")
    ap.add_argument("--sweep", type=int, default=1, help="light sweep interval, s")
    ap.add_argument("-A", action="store_true", help="run ibsm with -A (use_ucast_cache)")
    ap.add_argument("--tries", type=int, default=6, help="flaps before giving up")
    ap.add_argument("--flap-window", type=int, default=31, help="hm_num_flapping_sweeps_window (1-31)")
    ap.add_argument("--windows", type=int, default=6, help="cpu: measuring windows")
    ap.add_argument("--window", type=float, default=30.0, help="cpu: seconds per window")
    ap.add_argument("--settle", type=float, default=10.0, help="cpu: s after SUBNET UP")
    ap.add_argument("--logs", type=Path, help="isolate: keep the SM's log here")
    args = ap.parse_args()
    fabric = args.fabric.resolve()
    print(f"# health {args.mode}, {fabric.name}, {datetime.datetime.now():%Y-%m-%d %H:%M}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="ibsm-health-bench-") as d:
        if args.mode == "isolate":
            r = isolate_run(fabric, Path(d), args)
            for k, v in r.items():
                print(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}")
            return 0 if r["changed_not_used"] == 0 and r["still_on_link"] == 0 else 1
        print("| window | checks | light sweeps | SM CPU s (ticks) | SM CPU s (schedstat) | wall s "
              "| CPU ms / sweep (schedstat) | load |")
        print("|---|---|---|---|---|---|---|---|")
        rows = cpu_run(fabric, Path(d), args)
    on = sorted(r["per_sweep_ms"] for r in rows if r["checks"] and r["per_sweep_ms"])
    off = sorted(r["per_sweep_ms"] for r in rows if not r["checks"] and r["per_sweep_ms"])
    if on and off:
        mon, moff = on[len(on) // 2], off[len(off) // 2]
        print(f"# median CPU per light sweep: checks TRUE {mon:.2f} ms, FALSE {moff:.2f} ms, "
              f"ratio {mon / moff:.3f}; ranges {on[0]:.2f}-{on[-1]:.2f} / {off[0]:.2f}-{off[-1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
