#!/usr/bin/python3
"""Re-route benchmark: one inter-switch link fails on a big fabric that an SM runs.

For every SM kind a fresh ibsim runs; the SM (daemon, no periodic sweeps: -s 0, so only
the traps drive it) brings the fabric up; then one switch-switch link is `Unlink`ed on
ibsim's console (ibsim sends Trap 128 from both switches) and we record, from the SM's
log (both SMs run with -d 2: a flushed line per event):
  bring-up   seconds from spawn to the first SUBNET UP (the full route: every LFT block)
  reroute    seconds from the Unlink to the next SUBNET UP (tables programmed again)
  settled    seconds from the Unlink until the SM's log shows no new SUBNET UP for 3 s
  lft        LFT blocks sent: ibsm logs them on its SUBNET UP line ("LFT blocks N");
             OpenSM does not log them, shown as "-"
  wire       SMPs the SM's port sent, from its PortXmitPkts counter (perfquery -x run
             from another node, by LID): bring-up = counter after SUBNET UP, reroute =
             its increase from just before the Unlink until settled, minus the
             perfquery answers themselves
and the ratios reroute / bring-up (time, LFT blocks, SMPs), the target being <= 0.2.
The link is the first switch-switch link (sorted by name) whose loss keeps every node
reachable and touches neither the SM's nor the judge's leaf switch.
Kinds: ibsm, ibsm-A (-A: use_ucast_cache), opensm (-R minhop, its default), opensm-A.

  bench/reroute.py [--fabric FILE] [--kinds ibsm,ibsm-A,opensm,opensm-A] [--runs 1] [--logs DIR]
ibsm is $IBSM_BIN. Fabrics come from $IBSM_TOPOLOGIES or ../shared/topologies.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))
sys.path.insert(0, str(ROOT / "bench"))

from failover import first_after, line_time  # noqa: E402
from ibsimlib import Ibsm, NetModel, OpenSM, SMProcess, Simulator, run_tool, wait_for  # noqa: E402

TOPOS = Path(os.environ.get("IBSM_TOPOLOGIES") or ROOT.parent / "shared" / "topologies")
DEFAULT_FABRIC = TOPOS / "kary-18-3-5832.net"
QUIET_S = 3.0  # no new SUBNET UP for this long: the SM is done with the failure


def pick_link(model: NetModel, sm_node: str, judge: str) -> tuple[str, int]:
    edge = {model.nodes[sm_node].peers[1][0], model.nodes[judge].peers[1][0]}
    for (a, pa), (b, pb) in sorted(model.links()):
        if not (model.nodes[a].is_switch and model.nodes[b].is_switch):
            continue
        if a in edge or b in edge:
            continue
        m = model.copy()
        m.unlink(a, pa)
        if len(m.reachable_from(sm_node)) == len(model.nodes):
            return a, pa
    raise SystemExit("no redundant inter-switch link")


def xmit(sim: Simulator, judge: str, lid: int, port: int) -> int | None:
    cp = run_tool(sim, judge, ["perfquery", "-x", str(lid), str(port)], check=False)
    m = re.search(r"PortXmitPkts:\.*(\d+)", cp.stdout)
    return int(m.group(1)) if m else None


def sm_lid(sim: Simulator, judge: str) -> int:
    cp = run_tool(sim, judge, ["sminfo"])
    m = re.search(r"sm lid (\d+)", cp.stdout)
    assert m, cp.stdout
    return int(m.group(1))


def make_sm(kind: str, sim: Simulator, node: str, workdir: Path) -> SMProcess:
    extra = ["-A"] if kind.endswith("-A") else []
    if kind.startswith("ibsm"):
        impl, extra = Ibsm(), ["-d", "2"] + extra
    else:
        impl = OpenSM()  # its argv() adds -d 2; -R minhop is its default
    return SMProcess(impl, sim, node, workdir / kind, once=False, sweep=0, extra=extra)


def one_run(fabric: Path, kind: str, workdir: Path, logs: Path | None = None) -> dict:
    model = NetModel(fabric)
    sm_node, judge = model.cas[0], model.cas[-1]
    sm_port = 1
    a, pa = pick_link(model, sm_node, judge)
    sim = Simulator(fabric, workdir / "sim", "reroute").start(timeout=300)
    proc = make_sm(kind, sim, sm_node, workdir)
    try:
        proc.start()
        bring_up = proc.wait_up(900)
        # The SM's post-SUBNET UP reads (ibsm: port tables) end quickly; wait for silence.
        lid = sm_lid(sim, judge)
        w0 = xmit(sim, judge, lid, sm_port)
        while True:
            time.sleep(QUIET_S)
            w1 = xmit(sim, judge, lid, sm_port)
            if w1 is None or w0 is None or w1 - w0 <= 2:
                break
            w0 = w1
        up_line = first_after(proc.log(), 0, r"SUBNET UP")
        ups = proc.count_up()
        t0 = time.time()
        sim.command(f'Unlink "{a}"[{pa}]')
        wait_for(lambda: proc.count_up() > ups, 600, "SUBNET UP after the Unlink")
        # Settled: no new SUBNET UP (a second trap's sweep) for QUIET_S seconds.
        while True:
            n = proc.count_up()
            time.sleep(QUIET_S)
            if proc.count_up() == n:
                break
        log = proc.log()
        first = first_after(log, t0, r"SUBNET UP")
        last = [(line_time(ln), ln) for ln in log.splitlines()
                if "SUBNET UP" in ln and (line_time(ln) or 0) >= t0][-1]
        w2 = xmit(sim, judge, lid, sm_port)

        def lft_blocks(line: str | None) -> int | None:
            m = re.search(r"LFT blocks (\d+)", line or "")
            return int(m.group(1)) if m else None
        lft_after = [lft_blocks(ln) for ln in log.splitlines()
                     if "SUBNET UP" in ln and (line_time(ln) or 0) >= t0]
        return {
            "kind": kind, "link": f"{a}[{pa}]", "bring_up": bring_up,
            "reroute": first[0] - t0, "settled": last[0] - t0,
            "sweeps": proc.count_up() - ups,
            "lft_full": lft_blocks(up_line[1] if up_line else None),
            "lft": sum(x for x in lft_after if x is not None) if any(
                x is not None for x in lft_after) else None,
            "wire_full": w0, "wire": (w2 - w1 - 2) if w2 is not None and w1 is not None else None,
        }
    finally:
        proc.kill()
        sim.stop()
        if logs is not None:
            logs.mkdir(parents=True, exist_ok=True)
            (logs / f"{kind}.log").write_text(proc.log())


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def ratio(a, b):
    return "-" if a is None or not b else f"{a / b:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fabric", type=Path, default=DEFAULT_FABRIC)
    ap.add_argument("--kinds", default="ibsm,ibsm-A,opensm,opensm-A")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--logs", type=Path, help="keep each SM's log here (<kind>.log)")
    args = ap.parse_args()
    fabric = args.fabric.resolve()
    print(f"# re-route after one inter-switch Unlink, {fabric.name}, "
          f"{datetime.datetime.now():%Y-%m-%d %H:%M}, {os.cpu_count()} CPUs")
    print("| SM | link | bring-up s | reroute s | settled s | sweeps | LFT blocks (full) | "
          "SMPs on wire (full) | time ratio | LFT ratio | SMP ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = {}
    for run in range(args.runs):
        for kind in args.kinds.split(","):
            with tempfile.TemporaryDirectory(prefix="ibsm-reroute-") as d:
                r = one_run(fabric, kind, Path(d), args.logs)
            rows.setdefault(kind, []).append(r)
            print(f"| {kind} | {r['link']} | {fmt(r['bring_up'])} | {fmt(r['reroute'])} | "
                  f"{fmt(r['settled'])} | {r['sweeps']} | {fmt(r['lft'], 'd')} "
                  f"({fmt(r['lft_full'], 'd')}) | {fmt(r['wire'], 'd')} ({fmt(r['wire_full'], 'd')}) | "
                  f"{ratio(r['reroute'], r['bring_up'])} | {ratio(r['lft'], r['lft_full'])} | "
                  f"{ratio(r['wire'], r['wire_full'])} |", flush=True)
    last = {k: v[-1] for k, v in rows.items()}
    for ours, theirs in (("ibsm", "opensm"), ("ibsm-A", "opensm-A")):
        if ours in last and theirs in last:
            o, t = last[ours], last[theirs]
            print(f"# {ours} / {theirs}: reroute time {ratio(o['reroute'], t['reroute'])}, "
                  f"SMPs {ratio(o['wire'], t['wire'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
