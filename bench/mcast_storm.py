#!/usr/bin/python3
"""Multicast join storm: every host joins the IPoIB broadcast group at once, OpenSM vs ibsm.

What a ClientReregister (or an SM failover) causes on a real fabric: every IPoIB port
sends MCMemberRecord Set (MGID|PortGID|P_Key|JoinState, JoinState 1) for
ff12:401b:ffff::ffff:ffff, which both SMs pre-create (MLID 0xC000).  Under ibsim one
client process is one port, so bench/sa_joins on the last Hca sends all of them as proxy
joins (allowed: every port shares the default P_Key), --outstanding at a time, resending
after 1 s without an answer.

For each fabric, each SM runs as a daemon (-s 0: no periodic sweeps, so every SMP after
SUBNET UP is the storm's) on its own ibsim of the net file, SM on the first Hca.  Once it
logged SUBNET UP the storm starts; meanwhile bench/mft_watch (one process, LID-routed
SubnGet(MulticastForwardingTable) only) polls the edge switches of --sample random hosts
(--all-edges: of every host) until each one's MFT entry holds its sampled hosts' ports and
at least one other port (uplink); afterwards `ibroute -M <switch> 0xc000 0xc000` must show
the same on every polled switch.  (Polling with ibroute itself, a process spawn per switch
and round, took as much CPU as the SM and ibsim together and halved both SMs' join rates.)
Reported:
  answered  seconds from the first join sent to the last one answered (sa_joins' clock)
  MFTs      seconds from the first join sent until every polled edge switch was correct
  rate      joins answered per second
  SMPs/join PortXmitPkts (extended) of the SM's port, perfquery before the storm and after
            the counter stopped moving, minus the SA answers (they leave by the same port),
            divided by the joins: the MFT programming (and anything else) per join
  resends   joins sent again after a timeout; status counts of the answers
and the ratios ibsm/OpenSM.  The SA answers before the switches are programmed (sa.md
5.2.7), so "MFTs" is the figure IPoIB traffic waits for.  Under ibsim every MAD crosses
ibsim twice and the polling itself loads it, so the absolute times are bounded by ibsim.

  bench/mcast_storm.py [--fabric FILE ...] [--outstanding 64] [--sample 20] [--all-edges]
                       [--runs N] [--sm opensm,ibsm] [--sm-arg ARG ...] [--sa-joins PATH]
                       [--mft-watch PATH] [--json out.json] [--keep]
ibsm from $IBSM_BIN; sa_joins from --sa-joins or build/bench/sa_joins, mft_watch from
--mft-watch or build/bench/mft_watch.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))

from ibsimlib import HarnessError, Ibsm, NetModel, OpenSM, SMProcess, Simulator, Topology, run_tool  # noqa: E402

TOPOS = Path(os.environ.get("IBSM_TOPOLOGIES") or ROOT.parent / "shared" / "topologies")
DEFAULT_FABRICS = [TOPOS / "kary-18-3-5832.net"]
MLID = 0xC000


_seq = iter(range(1 << 30))


def tool(sim: Simulator, node: str, argv: list[str], timeout: float = 60.0) -> subprocess.CompletedProcess:
    """run_tool for concurrent use: each call gets its own working directory (umad2sim
    puts its sys-PID tree there, and run_tool's cleanup would remove a neighbour's)."""
    cwd = sim.workdir / "clients" / f"t{next(_seq)}"
    cwd.mkdir(parents=True)
    try:
        return subprocess.run(argv, cwd=cwd, env=sim.env(node), capture_output=True, text=True,
                              timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired as e:
        raise HarnessError(f"{' '.join(argv)} (as {node}) hung for {timeout}s") from e
    finally:
        shutil.rmtree(cwd, ignore_errors=True)


def xmit_pkts(sim: Simulator, node: str) -> int:
    cp = tool(sim, node, ["perfquery", "-x"])
    m = re.search(r"PortXmitPkts:\.*(\d+)", cp.stdout)
    if not m:
        raise HarnessError(f"perfquery -x as {node}: {cp.stdout[-500:]}{cp.stderr[-500:]}")
    return int(m.group(1))


def mft_ports(sim: Simulator, node: str, lid: int) -> set[int] | None:
    """Ports of the MLID's MFT entry on switch `lid` (None if ibroute failed), from
    `ibroute -M`: a 'Ports:' header gives the columns (0, 1, ... 9, 0, 1, ...: the
    tens are on the line above), an 'x' marks a member."""
    cp = tool(sim, node, ["ibroute", "-M", str(lid), hex(MLID), hex(MLID)])
    if cp.returncode != 0:
        return None
    cols: dict[int, int] = {}
    for line in cp.stdout.splitlines():
        if line.strip().startswith("Ports:"):
            start = line.index(":") + 1
            # one column per port 0..N, labelled with the port's last digit only
            cols = {m.start() + start: k for k, m in enumerate(re.finditer(r"\d", line[start:]))}
            continue
        m = re.match(r"^(0x[0-9a-fA-F]+)\s", line)
        if m and cols and int(m.group(1), 16) == MLID:
            return {p for i, p in cols.items() if i < len(line) and line[i] == "x"}
    return set()


def bench_sm(sm, fabric: Path, model: NetModel, workdir: Path, sa_joins: Path, mft_watch: Path,
             outstanding: int,
             sample: int, all_edges: bool, up_timeout: float, seed: int, storm_timeout: float,
             sm_args: list[str]) -> dict:
    sm_node, client = model.cas[0], model.cas[-1]
    sim = Simulator(fabric, workdir / "sim", "mcstorm")
    proc = SMProcess(sm, sim, sm_node, workdir / "sm", once=False, sweep=0, extra=sm_args)
    try:
        sim.start(timeout=300)
        proc.start()
        up = proc.wait_up(up_timeout)
        topo = Topology(run_tool(sim, client, ["ibnetdiscover"], timeout=600).stdout)
        hosts = [(n, p) for n in topo.nodes.values() if not n.is_switch for p in n.ports.values()]
        gfile = workdir / "guids.txt"
        gfile.write_text("".join(f"{p.guid:#018x}\n" for _, p in sorted(hosts, key=lambda h: h[1].guid)))
        picked = hosts if all_edges else random.Random(seed).sample(hosts, min(sample, len(hosts)))
        want: dict[int, set[int]] = {}  # edge switch LID -> host ports that must be in the MFT
        for _, p in picked:
            want.setdefault(topo.nodes[p.peer_guid].lid, set()).add(p.peer_port)
        edge_ports = {topo.nodes[p.peer_guid].lid: set() for _, p in hosts}
        topo_by_lid = {n.lid: n for n in topo.nodes.values() if n.is_switch}
        for _, p in hosts:
            edge_ports[topo.nodes[p.peer_guid].lid].add(p.peer_port)

        time.sleep(2)  # let the SM settle after SUBNET UP
        pre = [lid for lid in want if (mft_ports(sim, client, lid) or set()) & want[lid]]
        if pre:
            raise HarnessError(f"MLID {MLID:#x} already forwards to sampled hosts on switches {pre}")
        before = xmit_pkts(sim, sm_node)
        result: dict = {}

        def storm():
            try:
                result["cp"] = tool(sim, client, [str(sa_joins), "--guids", str(gfile),
                                                  "--outstanding", str(outstanding)], timeout=storm_timeout)
            except Exception as e:  # noqa: BLE001 (reported below)
                result["error"] = e

        swfile = workdir / "switches.txt"
        swfile.write_text("".join(
            f"{lid} {topo_by_lid[lid].nports} {','.join(map(str, sorted(ports)))} "
            f"{','.join(map(str, sorted(edge_ports[lid]))) or '-'}\n" for lid, ports in sorted(want.items())))
        watch: dict = {}

        def watcher():
            try:
                watch["cp"] = tool(sim, client, [str(mft_watch), "--switches", str(swfile),
                                                 "--timeout-s", str(storm_timeout)], timeout=storm_timeout + 60)
            except Exception as e:  # noqa: BLE001 (reported below)
                watch["error"] = e

        wt = threading.Thread(target=watcher)
        wt.start()
        th = threading.Thread(target=storm)
        th.start()
        wt.join()
        if "error" in watch:
            raise HarnessError(f"mft_watch: {watch['error']}")
        m = re.search(r"^RESULT done=(\S+) polls=(\d+)", watch["cp"].stdout, re.M)
        if not m:
            raise HarnessError(f"mft_watch printed no RESULT:\n{watch['cp'].stdout[-1500:]}"
                               f"\n{watch['cp'].stderr[-1500:]}")
        mft_done = float(m.group(1)) if float(m.group(1)) >= 0 else None
        polls = int(m.group(2))
        th.join()
        if "error" in result:
            raise HarnessError(f"sa_joins: {result['error']}")
        cp = result["cp"]
        m = re.search(r"^RESULT (.*)$", cp.stdout, re.M)
        if not m:
            raise HarnessError(f"sa_joins printed no RESULT:\n{cp.stdout[-1500:]}\n{cp.stderr[-1500:]}")
        r = {k: float(v) for k, v in (kv.split("=") for kv in m.group(1).split())}
        # from the first join sent (sa_joins' clock is CLOCK_MONOTONIC, as time.monotonic and
        # mft_watch), so the start-up of the client process counts for neither SM
        mft_t = mft_done - r["start"] if mft_done is not None else None
        summary = cp.stdout.strip().splitlines()[0]
        # wait for the SM to stop sending (MFT updates may trail the last answer)
        after, still = xmit_pkts(sim, sm_node), 0
        while still < 2:
            time.sleep(1)
            now = xmit_pkts(sim, sm_node)
            still = still + 1 if now == after else 0
            after = now
        # the independent tool agrees with the watcher on every polled switch
        for lid, ports in want.items():
            got = mft_ports(sim, client, lid)
            if got is None or not (ports <= got and got - edge_ports[lid]):
                raise HarnessError(f"ibroute -M {lid}: MLID {MLID:#x} ports {sorted(got or [])}, "
                                   f"want {sorted(ports)} and an uplink")
        sa_answers = r["answered"] + r["dup"]  # every answer the client got left the SM's port
        joins = max(r["ports"], 1)
        if not proc.alive():
            raise HarnessError(f"{sm.name} died during the storm\n{proc.tail()}")
        return {"sm": sm.name, "fabric": fabric.name, "up": up, "joins": int(r["ports"]),
                "answered": r["answered"], "ok": r["ok"], "answer_s": r["seconds"], "rate": r["rate"],
                "mft_s": mft_t, "edges": len(want), "polls": polls, "resends": r["sends"] - r["ports"],
                "lost": r["lost"], "wire": after - before, "smps_per_join": (after - before - sa_answers) / joins,
                "summary": summary, "mlid": int(r["mlid"])}
    finally:
        proc.kill()
        sim.stop()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fabric", action="append", type=Path, help="net file (repeatable; a bare name is "
                    "looked up in the topologies directory)")
    ap.add_argument("--outstanding", type=int, default=64)
    ap.add_argument("--sample", type=int, default=20, help="random hosts whose edge switches are polled")
    ap.add_argument("--all-edges", action="store_true", help="poll the edge switches of every host")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--sm", default="opensm,ibsm")
    ap.add_argument("--sa-joins", type=Path, default=ROOT / "build" / "bench" / "sa_joins")
    ap.add_argument("--mft-watch", type=Path, default=ROOT / "build" / "bench" / "mft_watch")
    ap.add_argument("--up-timeout", type=float, default=600)
    ap.add_argument("--storm-timeout", type=float, default=900)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sm-arg", action="append", default=[], help="extra SM argument (repeatable)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args(argv)
    for exe in (args.sa_joins, args.mft_watch):
        if not exe.exists():
            print(f"{exe} missing: ninja -C build bench/{exe.name}", file=sys.stderr)
            return 2
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
    fabrics = [(f if f.exists() or f.is_absolute() else TOPOS / f).resolve()  # ibsim runs elsewhere
               for f in (args.fabric or DEFAULT_FABRICS)]

    rows: list[dict] = []
    base = Path(tempfile.mkdtemp(prefix="ibsm-mcstorm-"))
    try:
        for fabric in fabrics:
            model = NetModel(fabric)
            print(f"# {fabric.name}: {len(model.switches)} switches, {len(model.cas)} CAs", file=sys.stderr)
            for run in range(args.runs):
                for sm in (sms if run % 2 == 0 else list(reversed(sms))):
                    wd = base / f"{fabric.stem}-{sm.name}-{run}"
                    try:
                        r = bench_sm(sm, fabric, model, wd, args.sa_joins, args.mft_watch, args.outstanding, args.sample,
                                     args.all_edges, args.up_timeout, args.seed + run, args.storm_timeout,
                                     args.sm_arg)
                    except HarnessError as e:
                        print(f"#   run {run} {sm.name}: FAILED: {str(e)[:1500]}", file=sys.stderr)
                        continue
                    r["run"] = run
                    mft = f"{r['mft_s']:.2f} s" if r["mft_s"] is not None else "never"
                    print(f"#   run {run} {sm.name}: up {r['up']:.1f} s; {r['summary']}; MFTs of "
                          f"{r['edges']} edge switches correct after {mft}; SM port sent {r['wire']} "
                          f"packets = {r['smps_per_join']:.2f} SMPs/join + answers", file=sys.stderr)
                    rows.append(r)
                    if not args.keep:
                        shutil.rmtree(wd, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)

    def med(rs, k):
        vals = [r[k] for r in rs if r.get(k) is not None]
        return statistics.median(vals) if vals else None

    def fmt(v, spec=".2f"):
        return "-" if v is None else format(v, spec)

    print(f"\nIPoIB broadcast join storm (proxy joins, {args.outstanding} outstanding), median of "
          f"{args.runs} run(s); {os.cpu_count()} CPUs; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print("| fabric | SM | joins | ok | resends | all answered s | joins/s | MFTs correct s "
          "| edge switches polled | SMPs/join |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    table = {}
    for fabric in dict.fromkeys(r["fabric"] for r in rows):
        for sm in sms:
            rs = [r for r in rows if (r["fabric"], r["sm"]) == (fabric, sm.name)]
            if not rs:
                continue
            row = {k: med(rs, k) for k in ("joins", "ok", "resends", "answer_s", "rate", "mft_s", "edges",
                                           "smps_per_join")}
            table[(fabric, sm.name)] = row
            print(f"| {fabric} | {sm.name} | {row['joins']:.0f} | {row['ok']:.0f} | {row['resends']:.0f} | "
                  f"{fmt(row['answer_s'])} | {fmt(row['rate'], '.0f')} | {fmt(row['mft_s'])} | "
                  f"{row['edges']:.0f} | {fmt(row['smps_per_join'])} |")
    if {s.name for s in sms} == {"opensm", "ibsm"}:
        print("\n| fabric | ibsm/OpenSM all answered | MFTs correct | SMPs/join |")
        print("|---|---|---|---|")
        for fabric in dict.fromkeys(r["fabric"] for r in rows):
            o, i = table.get((fabric, "opensm")), table.get((fabric, "ibsm"))
            if not o or not i:
                continue

            def ratio(k):
                return f"{i[k] / o[k]:.2f}" if i[k] is not None and o[k] else "-"
            print(f"| {fabric} | {ratio('answer_s')} | {ratio('mft_s')} | {ratio('smps_per_join')} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
