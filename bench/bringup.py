#!/usr/bin/python3
"""Cold bring-up benchmark: OpenSM -o vs ibsm -o on large simulated fabrics.

For every fabric and run, a fresh ibsim is started (all ports cold: LID 0,
state Init), the SM runs once (-o) on the first Hca with an empty cache dir,
and we record:
  up      seconds from spawn to "SUBNET UP" in the SM's log (log polled every 20 ms;
          both SMs run with -d 2, so the log is flushed after every line)
  exit    seconds from spawn to process exit
  wire    SMPs the SM put on the wire = PortXmitPkts (extended) of the SM's port,
          read with perfquery from the SM node after the SM exited; ibsim counts
          every packet a port transmits and perfquery itself does not change it.
          SMPs to the SM's own node never cross that port and are not included.
  logged  the SM's own count: ibsm logs "MADs sent N"; OpenSM logs none at the
          default verbosity (-V would distort the timing), shown as "-"
  rss     ru_maxrss of the SM process (wait4)
  cpu     user+system CPU seconds of the SM process (less sensitive to machine load
          than wall time; ibsim's own CPU is not included)
  ibsim   ibsim's CPU seconds while the SM ran (/proc/PID/stat): the simulated fabric's
          cost of the SM's SMPs. On 2 cores, (cpu + ibsim) / 2 is a floor under "exit"
          that no SM can beat by waiting less; it moves with the machine's syscall and
          wake-up costs, which is why ratios of the same binaries move between days.
and the lower bound of SMPs a cold bring-up cannot avoid (docs/benchmarks.md), alone and
with what the default features add before SUBNET UP (NodeDescriptions, P_Key tables), which
ibsm's logged count is compared with.
The SMs alternate run by run so both see the same machine load.

  bench/bringup.py [--runs 3] [--fabric FILE ...] [--sm opensm,ibsm] [--json out.json]
                   [--ibsm-arg=-n0 ...] [--loss 20]
ibsm is taken from $IBSM_BIN; without it only OpenSM runs. --ibsm-arg passes one more flag to
ibsm (repeatable), e.g. to compare a fixed window (--ibsm-arg=-n4) with the adaptive default.

--loss N drops N % of the SMPs: ibsim's `Error` on the SM's own port, which loses N % of the
packets entering it, so every answer (whatever its path) is lost with probability N/100. Then
"SUBNET UP" alone proves little (OpenSM logs it after a sweep with errors, having dropped the
nodes it missed), so the loss is lifted after the SM exits and `ibnetdiscover` counts the CA
ports that hold a LID:
  lids    CA ports with a LID / CA ports in the fabric
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))

from ibsimlib import (HarnessError, Ibsm, NetModel, OpenSM, SMProcess, Simulator,  # noqa: E402
                      _wait4, run_tool)

# shared topologies: $IBSM_TOPOLOGIES, else ../shared/topologies next to the checkout (no
# absolute fallback: a machine-specific path would hide a missing or misplaced checkout)
TOPOS = Path(os.environ.get("IBSM_TOPOLOGIES") or ROOT.parent / "shared" / "topologies")
POLL_S = 0.02
# -d 2: flush the log after every line, as OpenSM gets it (ibsimlib): without it
# ibsm's SUBNET UP line sits in the stdio buffer until the exit flushes it, and
# "up" would time the post-SUBNET UP port table reads too.
IBSM_FLAGS = ["-d", "2"]
DEFAULT_FABRICS = [TOPOS / "fattree-648.net", TOPOS / "fattree-2048.net",
                   TOPOS / "kary-18-3-5832.net"]


IBSIM_CA_PKEYS, IBSIM_SWITCH_PKEYS, IBSIM_ENFORCE_PKEYS = 64, 8, 64


def lower_bound(model: NetModel, sm_node: str) -> dict[str, int]:
    """SMPs a cold bring-up (LMC 0, no errors) cannot avoid; see docs/benchmarks.md."""
    S = len(model.switches)
    links = len(model.links())
    ports = sum(n.nports + (1 if n.is_switch else 0) for n in model.nodes.values())
    end_ports = S + sum(len(model.nodes[c].peers) for c in model.cas)
    blocks = math.ceil((end_ports + 1) / 64)
    b = {
        "NodeInfo Get": links + 1,
        "PortInfo Get": ports,
        "SwitchInfo Get": S,
        "PortInfo Set": 4 * links + S,
        "SwitchInfo Set": S,
        "LFT Set": S * blocks,
    }
    b["total"] = sum(b.values())
    smn = model.nodes[sm_node]
    b["local"] = 1 + smn.nports + 2 * len(smn.peers)  # never on the wire
    b["wire"] = b["total"] - b["local"]
    # What the default features add before SUBNET UP (docs/benchmarks.md): the SA's
    # NodeRecords carry every NodeDescription, and every partition table (end ports,
    # switch ports facing them: OpenSM's default part_enforce both) must be read or
    # written, one SMP per 32-entry block of its capacity (ibsim's sim_net.c: CA
    # PartitionCap 64, switch PartitionCap 8, PartitionEnforcementCap 64).
    ca_ports = sum(len(model.nodes[c].peers) for c in model.cas)
    facing = sum(1 for c in model.cas for rn, _ in model.nodes[c].peers.values()
                 if model.nodes[rn].is_switch)
    f = {
        "NodeDescription Get": len(model.nodes),
        "P_KeyTable block": ca_ports * math.ceil(IBSIM_CA_PKEYS / 32) + S * math.ceil(IBSIM_SWITCH_PKEYS / 32)
        + facing * math.ceil(IBSIM_ENFORCE_PKEYS / 32),
    }
    b["features"] = sum(f.values())
    b["with_features"] = b["total"] + b["features"]
    return b


def ca_ports_with_lid(sim, sm_node: str) -> int:
    """CA ports ibnetdiscover shows with a non-zero LID."""
    cp = run_tool(sim, sm_node, ["ibnetdiscover"], check=False, timeout=600)
    n, in_ca = 0, False
    for line in cp.stdout.splitlines():
        if line.startswith(("Ca", "Switch", "Rt")):
            in_ca = line.startswith("Ca")
        elif in_ca and line.startswith("["):
            m = re.search(r"# lid (\d+)", line)
            n += bool(m and int(m.group(1)))
    return n


def process_cpu(pid: int) -> float:
    """User+system CPU seconds of a running process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_run(sm, fabric: Path, model: NetModel, sm_node: str, workdir: Path, timeout: float,
            extra: list[str] | None = None, loss: int = 0) -> dict:
    sim = Simulator(fabric, workdir / "sim", "bench")
    proc = SMProcess(sm, sim, sm_node, workdir / "sm", once=True, cache_dir=workdir / "cache",
                     extra=extra)
    try:
        sim.start(timeout=300)
        if loss:
            sim.command(f'Error "{sm_node}" {loss}')
        sim_cpu0 = process_cpu(sim.proc.pid)
        proc.start()
        up = None
        pos = 0
        deadline = time.monotonic() + timeout
        while True:
            if up is None:
                try:
                    if os.stat(proc.logfile).st_size > pos:
                        with open(proc.logfile, "rb") as fh:
                            fh.seek(pos)
                            chunk = fh.read()
                        if b"SUBNET UP" in chunk:
                            up = time.monotonic() - proc.t_start
                        pos += max(0, len(chunk) - 16)
                except FileNotFoundError:
                    pass
            try:
                # 20 ms polling: cheap enough not to steal CPU from ibsim and the SM
                _, _, proc.rusage = _wait4(proc.proc, POLL_S)
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    raise HarnessError(f"{sm.name} on {fabric.name} did not finish in {timeout}s")
        exit_t = time.monotonic() - proc.t_start
        sim_cpu = process_cpu(sim.proc.pid) - sim_cpu0
        rc = proc.proc.returncode
        log = proc.log()
        if up is None and "SUBNET UP" in log:
            up = exit_t
        if loss:
            sim.command(f'Error "{sm_node}" 0')
        cp = run_tool(sim, sm_node, ["perfquery", "-x"], check=False)
        m = re.search(r"PortXmitPkts:\.*(\d+)", cp.stdout)
        wire = int(m.group(1)) if m else None
        m = re.search(r"MADs sent (\d+)", log)
        cpu = proc.rusage.ru_utime + proc.rusage.ru_stime if proc.rusage else None
        lids = ca_ports_with_lid(sim, sm_node) if loss else None
        return {"sm": sm.name, "rc": rc, "up": up, "exit": exit_t, "wire": wire, "lids": lids,
                "logged": int(m.group(1)) if m else None,
                "rss_mb": proc.rusage.ru_maxrss / 1024 if proc.rusage else None,
                "cpu": cpu, "ibsim_cpu": sim_cpu,
                "cpu_with_ibsim": None if cpu is None else cpu + sim_cpu}
    finally:
        proc.kill()
        sim.stop()


def fmt(v, spec=".2f"):
    return "-" if v is None else format(v, spec)


def median(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fabric", action="append", type=Path, help="net file (repeatable)")
    ap.add_argument("--sm", default="opensm,ibsm", help="comma list of SMs")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", type=Path, help="also write raw results here")
    ap.add_argument("--keep", action="store_true", help="keep work dirs")
    ap.add_argument("--ibsm-arg", action="append", default=[], metavar="FLAG",
                    help="one more flag for ibsm (repeatable; write --ibsm-arg=-n4)")
    ap.add_argument("--loss", type=int, default=0, metavar="PERCENT",
                    help="drop this share of SMPs (ibsim Error on the SM's port)")
    args = ap.parse_args(argv)

    sms = []
    for name in args.sm.split(","):
        impl = OpenSM() if name == "opensm" else Ibsm()
        why = impl.available()
        if why:
            print(f"# skipping {name}: {why}", file=sys.stderr)
        else:
            sms.append(impl)
    if not sms:
        print("no SM available", file=sys.stderr)
        return 2

    results = []
    base = Path(tempfile.mkdtemp(prefix="ibsm-bench-"))
    try:
        for fabric in [f.resolve() for f in args.fabric or DEFAULT_FABRICS]:  # ibsim runs elsewhere
            model = NetModel(fabric)
            sm_node = model.cas[0]
            lb = lower_bound(model, sm_node)
            print(f"# {fabric.name}: {len(model.switches)} switches, {len(model.cas)} CAs, "
                  f"{len(model.links())} links; SM on {sm_node}; lower bound {lb['total']} SMPs "
                  f"({lb['wire']} on the wire), {lb['with_features']} with the default features", file=sys.stderr)
            for run in range(args.runs):
                for sm in (sms if run % 2 == 0 else list(reversed(sms))):
                    wd = base / f"{fabric.stem}-{sm.name}-{run}"
                    try:
                        r = one_run(sm, fabric, model, sm_node, wd, args.timeout,
                                    IBSM_FLAGS + args.ibsm_arg if sm.name == "ibsm" else None,
                                    args.loss)
                    except HarnessError as e:  # hung or broken run: record it, go on
                        print(f"#   run {run} {sm.name}: FAILED: {str(e)[:500]}", file=sys.stderr)
                        r = {"sm": sm.name, "rc": None, "up": None, "exit": None, "cpu": None,
                             "ibsim_cpu": None, "cpu_with_ibsim": None, "wire": None,
                             "logged": None, "rss_mb": None, "lids": None}
                    r.update(fabric=fabric.name, run=run, bound=lb, cas=len(model.cas))
                    results.append(r)
                    print(f"#   run {run} {sm.name}: rc {r['rc']} up {fmt(r['up'])}s exit "
                          f"{fmt(r['exit'])}s cpu {fmt(r['cpu'])}s ibsim cpu {fmt(r['ibsim_cpu'])}s wire {r['wire']} logged {r['logged']} "
                          f"rss {fmt(r['rss_mb'], '.0f')} MB"
                          + (f" lids {r['lids']}/{len(model.cas)}" if args.loss else ""), file=sys.stderr)
                    if not args.keep:
                        shutil.rmtree(wd, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)

    print(f"\nCold bring-up{f' with {args.loss} % SMP loss' if args.loss else ''}, median of "
          f"{args.runs} run(s); {os.cpu_count()} CPUs; "
          f"{time.strftime('%Y-%m-%d %H:%M')}; load average {os.getloadavg()[0]:.1f}\n")
    print("| fabric | SM | runs ok | SUBNET UP s | exit s | SM CPU s | ibsim CPU s | SMPs on wire | "
          "SMPs logged | lower bound (wire) | bound + features | logged / bound + features | "
          "peak RSS MB |" + (" CA ports with LID |" if args.loss else ""))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if args.loss else ""))
    table = {}
    for fabric in dict.fromkeys(r["fabric"] for r in results):
        for sm in sms:
            rs = [r for r in results if r["fabric"] == fabric and r["sm"] == sm.name]
            ok = [r for r in rs if r["rc"] == 0 and r["up"] is not None]
            row = {k: median([r[k] for r in ok]) for k in
                   ("up", "exit", "cpu", "ibsim_cpu", "cpu_with_ibsim", "wire", "logged", "rss_mb")}
            lids = [r["lids"] for r in rs if r["lids"] is not None]
            table[(fabric, sm.name)] = row
            lb = rs[0]["bound"]
            print(f"| {fabric} | {sm.name} | {len(ok)}/{len(rs)} | {fmt(row['up'])} | "
                  f"{fmt(row['exit'])} | {fmt(row['cpu'])} | {fmt(row['ibsim_cpu'])} | {fmt(row['wire'], '.0f')} | {fmt(row['logged'], '.0f')} | "
                  f"{lb['total']} ({lb['wire']}) | {lb['with_features']} | "
                  f"{fmt(row['logged'] / lb['with_features'] if row['logged'] else None, '.3f')} | "
                  f"{fmt(row['rss_mb'], '.0f')} |"
                  + (f" {min(lids) if lids else '-'}-{max(lids) if lids else '-'} of {rs[0]['cas']} |"
                     if args.loss else ""))
    if len(sms) == 2:
        print("\n| fabric | ibsm/OpenSM time to SUBNET UP | SM CPU | SM + ibsim CPU | SMPs on wire | peak RSS |")
        print("|---|---|---|---|---|---|")
        for fabric in dict.fromkeys(r["fabric"] for r in results):
            o, i = table[(fabric, "opensm")], table[(fabric, "ibsm")]

            def ratio(k):
                return "-" if not o[k] or i[k] is None else f"{i[k] / o[k]:.2f}"
            print(f"| {fabric} | {ratio('up')} | {ratio('cpu')} | {ratio('cpu_with_ibsim')} | "
                  f"{ratio('wire')} | {ratio('rss_mb')} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
