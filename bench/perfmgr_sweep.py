#!/usr/bin/python3
"""PerfMgr sweep benchmark: OpenSM --perfmgr vs ibsm --perfmgr on a simulated fabric.

For each SM and run: a fresh ibsim, the SM on the first Hca with --perfmgr,
perfmgr_sweep_time_s SWEEP and the same perfmgr_max_outstanding_queries; once the
subnet is up, the PerfMgr sweeps are timed from the SM's own log:
  ibsm    "PerfMgr sweep N done in X s" (first query to last answer)
  OpenSM  with -D 0x07 (verbose): from "Gathering PerfMgr stats" to the last
          "Processing received MAD" before the next sweep starts
Only sweeps after the first count: OpenSM's first sweep reads ClassPortInfo only,
ibsm's reads ClassPortInfo and the counters together. Reported per sweep: seconds,
PerfMgt answers and answers per monitored port (OpenSM: its "Processing received MAD"
lines; ibsm: the answers its sweep lines count).

  bench/perfmgr_sweep.py --fabric FILE [--runs 1] [--sweeps 3] [--sweep-time 10]
                         [--outstanding 500] [--sm opensm,ibsm]
ibsm is taken from $IBSM_BIN. Both SMs run with -d 2 (OpenSM: the log is flushed
after every line, so its verbose log costs it time: a bias against OpenSM that the
ratio carries; noted in docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))

from ibsimlib import Ibsm, NetModel, OpenSM, SMProcess, Simulator, wait_for  # noqa: E402

STAMP = re.compile(r"^\w{3} +\d+ (\d\d):(\d\d):(\d\d) (\d{6}) ")


def stamp(line: str) -> float | None:
    m = STAMP.match(line)
    if not m:
        return None
    h, mi, s, us = (int(x) for x in m.groups())
    return h * 3600 + mi * 60 + s + us / 1e6


def opensm_sweeps(log: str) -> list[tuple[float, int]]:
    """(seconds, answers) of every OpenSM PerfMgr sweep, in order."""
    sweeps = []
    start = last = None
    answers = 0
    for line in log.splitlines():
        if "Gathering PerfMgr stats" in line:
            if start is not None and last is not None:
                sweeps.append((last - start, answers))
            start, last, answers = stamp(line), None, 0
        elif "Processing received MAD" in line and start is not None:
            last = stamp(line)
            answers += 1
    return sweeps


IBSM_DONE = re.compile(r"PerfMgr sweep (\d+) done in ([\d.]+) s \((\d+) nodes; (\d+) queries, "
                       r"(\d+) answers")


def ibsm_sweeps(log: str) -> list[tuple[float, int]]:
    out = []
    prev = 0
    for m in IBSM_DONE.finditer(log):
        answers = int(m.group(5))
        out.append((float(m.group(2)), answers - prev))
        prev = answers
    return out


def monitored_ports(model: NetModel) -> int:
    """Ports a PerfMgr reads: every linked switch port and CA port (approximately: the
    connected ones, as the net file lists them)."""
    links = model.links() if callable(model.links) else model.links
    return len(links) * 2


def run_one(sm, fabric: Path, work: Path, args) -> list[tuple[float, int]]:
    sim = Simulator(fabric, work / "sim", "sim").start(timeout=600)
    try:
        model = NetModel(fabric)
        conf = work / "opensm.conf"
        conf.write_text(f"perfmgr_max_outstanding_queries {args.outstanding}\n")
        extra = ["--perfmgr", "--perfmgr_sweep_time_s", str(args.sweep_time), "-F", str(conf)]
        if sm.name == "opensm":
            extra += ["-D", "0x07"]
        proc = SMProcess(sm, sim, model.cas[0], work / sm.name, once=False, sweep=0, extra=extra)
        proc.start()
        try:
            proc.wait_up(900)
            parse = opensm_sweeps if sm.name == "opensm" else ibsm_sweeps
            # OpenSM's sweep k is known complete once sweep k+1 starts.
            need = args.sweeps + (2 if sm.name == "opensm" else 1)
            wait_for(lambda: len(parse(proc.log())) >= need - (1 if sm.name == "opensm" else 0),
                     args.sweep_time * (need + 4) + 600, f"{need} PerfMgr sweeps", proc._exited)
            return parse(proc.log())[1:args.sweeps + 1]
        finally:
            proc.stop()
    finally:
        sim.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--fabric", required=True)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--sweeps", type=int, default=2)
    ap.add_argument("--sweep-time", type=int, default=10)
    ap.add_argument("--outstanding", type=int, default=500)
    ap.add_argument("--sm", default="opensm,ibsm")
    args = ap.parse_args()
    fabric = Path(args.fabric).resolve()
    ports = monitored_ports(NetModel(fabric))
    results: dict[str, list[tuple[float, int]]] = {}
    for run in range(args.runs):
        for name in args.sm.split(","):
            sm = OpenSM() if name == "opensm" else Ibsm()
            if sm.available():
                print(f"skip {name}: {sm.available()}")
                continue
            with tempfile.TemporaryDirectory(prefix=f"pmbench-{name}-") as d:
                sweeps = run_one(sm, fabric, Path(d), args)
            results.setdefault(name, []).extend(sweeps)
            for secs, answers in sweeps:
                print(f"run {run + 1} {name:7s} sweep {secs:8.3f} s  answers {answers:7d}  "
                      f"per port {answers / ports:.2f}")
    med = {k: statistics.median(s for s, _ in v) for k, v in results.items() if v}
    for k, v in med.items():
        print(f"{k:7s} median sweep {v:.3f} s over {len(results[k])} sweeps ({ports} ports)")
    if "opensm" in med and "ibsm" in med and med["opensm"] > 0:
        print(f"ratio ibsm/opensm {med['ibsm'] / med['opensm']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
