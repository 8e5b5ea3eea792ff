#!/usr/bin/python3
"""SA throughput benchmark: PathRecord Gets answered per second, OpenSM vs ibsm.

For each fabric, each SM runs as a daemon on its own ibsim of the same net file (SM on
the first Hca).  Once it logged SUBNET UP, bench/sa_load runs on another host and sends
PathRecord Gets (SGID+DGID, random pairs of the fabric's CA ports, read from
ibnetdiscover) keeping 1 and then 64 requests outstanding, --count answers each after a
warm-up.  The SMs alternate run by run, so both see the same machine load.  Reported:
  rate     answers/s (sa_load's clock, first answer after warm-up to the last)
  mean     mean round trip (us), worst = the slowest one
  SM CPU   CPU seconds the SM process used during the run (/proc/PID/stat), per 1000
           answers: the SM's own cost, independent of ibsim; in brackets the system
           (kernel) part, which under umad2sim is mostly its socket I/O and thread hand-off
  ibsim    ibsim's CPU per 1000 answers (every MAD crosses it twice)
  client   sa_load's CPU per 1000 answers
and the ratios ibsm/OpenSM.  Under ibsim every answer pays ibsim's forwarding, so the
rates are bounded by ibsim, the client and umad2sim (a socket and a thread hand-off
per MAD in every process); the CPU columns say where the time goes, and "SM CPU per
answer" is the figure that carries over to a real fabric.

  bench/sa_throughput.py [--fabric FILE ...] [--count N] [--runs N] [--outstanding 1,64]
                         [--sa-load PATH] [--json out.json]
ibsm from $IBSM_BIN; sa_load from --sa-load or build/bench/sa_load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))

from ibsimlib import HarnessError, Ibsm, NetModel, OpenSM, SMProcess, Simulator, run_tool  # noqa: E402

TOPOS = Path(os.environ.get("IBSM_TOPOLOGIES") or ROOT.parent / "shared" / "topologies")
DEFAULT_FABRICS = [TOPOS / "kary-4-3-64.net", TOPOS / "fattree-648.net"]
TICK = os.sysconf("SC_CLK_TCK")


def cpu_times(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, IndexError):
        return 0.0, 0.0
    return int(fields[11]) / TICK, int(fields[12]) / TICK  # utime, stime


def cpu_seconds(pid: int) -> float:
    return sum(cpu_times(pid))


def port_guids(sim: Simulator, judge: str) -> list[int]:
    out = run_tool(sim, judge, ["ibnetdiscover"], timeout=300).stdout
    return sorted({int(m.group(1), 16) for m in re.finditer(r"^\[\d+\]\(([0-9a-f]+)\)", out, re.M)})


def parse_result(text: str) -> dict:
    m = re.search(r"^RESULT (.*)$", text, re.M)
    if not m:
        raise HarnessError(f"sa_load printed no RESULT:\n{text[-2000:]}")
    return {k: float(v) for k, v in (kv.split("=") for kv in m.group(1).split())}


def bench_sm(sm, fabric: Path, model: NetModel, workdir: Path, sa_load: Path, outstanding: list[int],
             count: int, up_timeout: float) -> list[dict]:
    sm_node, client = model.cas[0], model.cas[-1]
    sim = Simulator(fabric, workdir / "sim", "sabench")
    proc = SMProcess(sm, sim, sm_node, workdir / "sm", once=False)
    try:
        sim.start(timeout=300)
        proc.start().wait_up(up_timeout)
        guids = port_guids(sim, client)
        gfile = workdir / "guids.txt"
        gfile.write_text("".join(f"{g:#018x}\n" for g in guids))
        rows = []
        for n in outstanding:
            sm0, sim0 = cpu_times(proc.proc.pid), cpu_seconds(sim.proc.pid)
            ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.monotonic()
            cp = run_tool(sim, client, [str(sa_load), "--guids", str(gfile), "--outstanding", str(n),
                                        "--count", str(count), "--warmup", str(min(2000, count // 10))],
                          timeout=600, check=False)
            wall = time.monotonic() - t0
            ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)  # sa_load (the only child waited for)
            client_cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
            r = parse_result(cp.stdout)
            k = max(r["answers"], 1) / 1000
            sm1 = cpu_times(proc.proc.pid)
            r.update(sm=sm.name, fabric=fabric.name, outstanding=n, wall=wall,
                     sm_cpu_per_k=(sum(sm1) - sum(sm0)) / k,
                     sm_sys_per_k=(sm1[1] - sm0[1]) / k,
                     sim_cpu_per_k=(cpu_seconds(sim.proc.pid) - sim0) / k,
                     client_cpu_per_k=client_cpu / k, rc=cp.returncode)
            if cp.returncode != 0 or r["lost"] or r["errors"]:
                print(f"#     {sm.name} x{n}: rc {cp.returncode}, {int(r['errors'])} errors, "
                      f"{int(r['lost'])} lost\n{cp.stderr[-500:]}", file=sys.stderr)
            rows.append(r)
        if not proc.alive():
            raise HarnessError(f"{sm.name} died during the benchmark\n{proc.tail()}")
        return rows
    finally:
        proc.kill()
        sim.stop()


def med(rows: list[dict], key: str):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabric", action="append", type=Path, help="net file (repeatable)")
    ap.add_argument("--count", type=int, default=20000, help="answers per measurement")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--outstanding", default="1,64")
    ap.add_argument("--sm", default="opensm,ibsm")
    ap.add_argument("--sa-load", type=Path, default=ROOT / "build" / "bench" / "sa_load")
    ap.add_argument("--up-timeout", type=float, default=120)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args(argv)
    if not args.sa_load.exists():
        print(f"{args.sa_load} missing: ninja -C build bench/sa_load", file=sys.stderr)
        return 2
    outstanding = [int(x) for x in args.outstanding.split(",")]
    sms = []
    for name in args.sm.split(","):
        impl = OpenSM() if name == "opensm" else Ibsm()
        why = impl.available()
        if why:
            print(f"# skipping {name}: {why}", file=sys.stderr)
        else:
            sms.append(impl)
    if not sms:
        return 2

    rows: list[dict] = []
    base = Path(tempfile.mkdtemp(prefix="ibsm-sabench-"))
    try:
        for fabric in [f.resolve() for f in args.fabric or DEFAULT_FABRICS]:  # ibsim runs elsewhere
            model = NetModel(fabric)
            print(f"# {fabric.name}: {len(model.switches)} switches, {len(model.cas)} CAs", file=sys.stderr)
            for run in range(args.runs):
                for sm in (sms if run % 2 == 0 else list(reversed(sms))):
                    wd = base / f"{fabric.stem}-{sm.name}-{run}"
                    try:
                        got = bench_sm(sm, fabric, model, wd, args.sa_load, outstanding, args.count,
                                       args.up_timeout)
                    except HarnessError as e:
                        print(f"#   run {run} {sm.name}: FAILED: {str(e)[:800]}", file=sys.stderr)
                        got = []
                    for r in got:
                        r["run"] = run
                        print(f"#   run {run} {sm.name} x{r['outstanding']}: {r['rate']:.0f}/s mean "
                              f"{r['mean_us']:.0f} us worst {r['worst_us']:.0f} us; SM CPU "
                              f"{r['sm_cpu_per_k'] * 1000:.0f} ms/1k, ibsim {r['sim_cpu_per_k'] * 1000:.0f} "
                              f"ms/1k, client {r['client_cpu_per_k'] * 1000:.0f} ms/1k", file=sys.stderr)
                    rows += got
                    if not args.keep:
                        shutil.rmtree(wd, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)

    print(f"\nSA PathRecord Get (SGID+DGID, random CA pairs), median of {args.runs} run(s) of "
          f"{args.count} answers; {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| fabric | SM | outstanding | answers/s | mean us | worst us | SM CPU ms/1k (of it system) "
          "| ibsim CPU ms/1k | client CPU ms/1k | errors+lost |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    table = {}
    for fabric in dict.fromkeys(r["fabric"] for r in rows):
        for sm in sms:
            for n in outstanding:
                rs = [r for r in rows if (r["fabric"], r["sm"], r["outstanding"]) == (fabric, sm.name, n)]
                if not rs:
                    continue
                row = {k: med(rs, k) for k in ("rate", "mean_us", "worst_us", "sm_cpu_per_k",
                                               "sm_sys_per_k", "sim_cpu_per_k", "client_cpu_per_k")}
                row["bad"] = sum(int(r["errors"] + r["lost"]) for r in rs)
                table[(fabric, sm.name, n)] = row
                print(f"| {fabric} | {sm.name} | {n} | {row['rate']:.0f} | {row['mean_us']:.0f} | "
                      f"{row['worst_us']:.0f} | {row['sm_cpu_per_k'] * 1000:.1f} "
                      f"({row['sm_sys_per_k'] * 1000:.1f}) | "
                      f"{row['sim_cpu_per_k'] * 1000:.1f} | {row['client_cpu_per_k'] * 1000:.1f} | "
                      f"{row['bad']} |")
    if {s.name for s in sms} == {"opensm", "ibsm"}:
        print("\n| fabric | outstanding | ibsm/OpenSM answers/s | mean latency | SM CPU per answer |")
        print("|---|---|---|---|---|")
        for fabric in dict.fromkeys(r["fabric"] for r in rows):
            for n in outstanding:
                o, i = table.get((fabric, "opensm", n)), table.get((fabric, "ibsm", n))
                if not o or not i:
                    continue
                cpu = (f"{i['sm_cpu_per_k'] / o['sm_cpu_per_k']:.2f}" if o["sm_cpu_per_k"] else "-")
                print(f"| {fabric} | {n} | {i['rate'] / o['rate']:.2f} | "
                      f"{i['mean_us'] / o['mean_us']:.2f} | {cpu} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
