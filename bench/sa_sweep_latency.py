#!/usr/bin/python3
"""SA responsiveness during a heavy sweep: OpenSM vs ibsm on the same fabric.

Each SM runs as a daemon on its own ibsim of the net file (default: the 5832-host
kary-18-3 tree).  Once it is up, bench/sa_load keeps --outstanding PathRecord Gets in
flight for --duration seconds from another host; one second in, the SM gets SIGHUP
(both SMs re-read their configuration and run a heavy sweep on it), and the log is
watched until that sweep ends.  Reported per SM: answers/s over the whole run, mean
and worst round trip (the worst one is the answer that waited longest for the sweep),
requests lost (no answer within sa_load's timeout), and how long the sweep took by the
SM's own log.  The SMs alternate run by run so both see the same machine load.

  bench/sa_sweep_latency.py [--fabric FILE] [--duration S] [--outstanding N] [--runs N]
ibsm from $IBSM_BIN; sa_load from build/bench/sa_load.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))
sys.path.insert(0, str(ROOT / "bench"))

from ibsimlib import HarnessError, Ibsm, NetModel, OpenSM, SMProcess, Simulator, wait_for  # noqa: E402
from sa_throughput import TOPOS, parse_result, port_guids  # noqa: E402


def one_run(sm, fabric: Path, model: NetModel, workdir: Path, sa_load: Path, duration: float,
            outstanding: int, up_timeout: float) -> dict:
    sm_node, client = model.cas[0], model.cas[-1]
    sim = Simulator(fabric, workdir / "sim", "salat")
    proc = SMProcess(sm, sim, sm_node, workdir / "sm", once=False)
    try:
        sim.start(timeout=600)
        proc.start().wait_up(up_timeout)
        gfile = workdir / "guids.txt"
        gfile.write_text("".join(f"{g:#018x}\n" for g in port_guids(sim, client)))
        ups = proc.count_up()
        cwd = sim.workdir / "clients"
        cwd.mkdir(exist_ok=True)
        load = subprocess.Popen([str(sa_load), "--guids", str(gfile), "--outstanding",
                                 str(outstanding), "--duration", str(duration), "--warmup", "100",
                                 "--timeout-ms", "5000"],
                                cwd=cwd, env=sim.env(client), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        time.sleep(1.0)  # a second of steady load before the sweep (a measurement, not a sync)
        if load.poll() is not None:
            raise HarnessError(f"sa_load ended early: {load.communicate()}")
        t_hup = time.monotonic()
        proc.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: proc.count_up() > ups, duration + 120, f"{sm.name} heavy sweep after SIGHUP")
        sweep_wall = time.monotonic() - t_hup
        out, err = load.communicate(timeout=duration + 600)
        r = parse_result(out)
        r.update(sm=sm.name, sweep_wall=sweep_wall)
        if not proc.alive():
            raise HarnessError(f"{sm.name} died\n{proc.tail()}")
        return r
    finally:
        proc.kill()
        sim.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabric", type=Path, default=TOPOS / "kary-18-3-5832.net")
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--outstanding", type=int, default=4)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--sm", default="opensm,ibsm")
    ap.add_argument("--sa-load", type=Path, default=ROOT / "build" / "bench" / "sa_load")
    ap.add_argument("--up-timeout", type=float, default=600)
    args = ap.parse_args(argv)
    args.fabric = args.fabric.resolve()  # ibsim runs in its own directory
    if not args.fabric.exists():
        print(f"# {args.fabric} not found (set IBSM_TOPOLOGIES)", file=sys.stderr)
        return 2
    model = NetModel(args.fabric)
    sms = {"opensm": OpenSM(), "ibsm": Ibsm()}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="ibsm-salat-") as tmp:
        for run in range(args.runs):
            for name in args.sm.split(","):
                r = one_run(sms[name], args.fabric, model, Path(tmp) / f"{name}-{run}",
                            args.sa_load, args.duration, args.outstanding, args.up_timeout)
                rows.append(r)
                print(f"# {name} run {run}: {r['rate']:.0f}/s, mean {r['mean_us']:.0f} us, "
                      f"worst {r['worst_us'] / 1000:.1f} ms, lost {int(r['lost'])}, "
                      f"sweep {r['sweep_wall']:.1f} s", flush=True)
    print(f"{'SM':8} {'answers/s':>10} {'mean us':>9} {'worst ms':>9} {'lost':>6} {'sweep s':>8}")
    by = {}
    for name in args.sm.split(","):
        mine = [r for r in rows if r["sm"] == name]
        med = {k: statistics.median(r[k] for r in mine)
               for k in ("rate", "mean_us", "worst_us", "lost", "sweep_wall")}
        by[name] = med
        print(f"{name:8} {med['rate']:10.0f} {med['mean_us']:9.0f} {med['worst_us'] / 1000:9.1f} "
              f"{med['lost']:6.0f} {med['sweep_wall']:8.1f}")
    if "opensm" in by and "ibsm" in by:
        o, i = by["opensm"], by["ibsm"]
        print(f"ratio ibsm/OpenSM: worst latency {i['worst_us'] / max(o['worst_us'], 1):.2f}, "
              f"answers/s {i['rate'] / max(o['rate'], 1):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
