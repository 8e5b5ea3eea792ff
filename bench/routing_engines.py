#!/usr/bin/python3
"""Routing-engine benchmark: ibsm's engines vs OpenSM's on the same fabrics.

For every fabric and engine:
  OpenSM  runs once (-o) under ibsim/umad2sim with `-R <engine> -D 0x43 --dump_files_dir`;
          its routing time is the log span from "Entering MASTER state" to "<engine> tables
          configured on all switches" (LID assignment + route computation + queueing the
          LFT MADs, osm_ucast_mgr.c), and the engine named in that line tells whether it
          fell back to minhop.  Its opensm-lfts.dump is graded by
          `routing_route_net --load-lfts` with the LIDs of its guid2lid cache file.
  ibsm    routes the same net file in process (`routing_route_net <net> <engine>`): the
          routing time is the engine's wall time alone (LIDs are given).
Both are graded by the same analyzer (routing/analysis.hpp): validity, EFI (max all-to-all
routes on one inter-switch channel), unused channels, effective bisection bandwidth
(Hoefler, Cluster'08; mean and worst of R random bisections), shift-permutation congestion
(worst and mean over shifts in leaf-major host order), mean ISL hops, % non-minimal paths,
and the 1-VL channel-dependency check.  One table per fabric with ours/OpenSM ratios.

  bench/routing_engines.py [--quick] [--fabric NAME ...] [--engine NAME ...]
                           [--route-net PATH] [--workdir DIR] [--json FILE] [--patterns R]

Rows named in VARIANTS run an engine with settings (nue8: nue on 8 VLs, OpenSM with -Q and
nue_max_num_vls 8; lash-mesh: lash with do_mesh_analysis TRUE). OpenSM's dump carries no SLs, so its SL-layered rows (dfsssp, lash, nue8,
torus-2QoS) get no CDG verdict; ibsm's are checked per VL with the engine's SLs.

Results of each (fabric, engine, SM) are cached as JSON under --workdir so an interrupted
run resumes; --fresh ignores them.  OpenSM's dumps are deleted once graded.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "ibsim"))

from ibsimlib import HarnessError, NetModel, OpenSM, SMProcess, Simulator, _wait4  # noqa: E402

TOPOS = Path(os.environ.get("IBSM_TOPOLOGIES") or ROOT.parent / "shared" / "topologies")
GEN = ROOT / "fabrics" / "gen_fabric.py"

TREE_ENGINES = ["minhop", "updn", "dfsssp", "ftree"]
LAYERED = ["lash", "nue", "nue8"]
TORUS_ENGINES = ["minhop", "updn", "dfsssp", "dor", "torus-2QoS", *LAYERED, "lash-mesh"]
IRREGULAR_ENGINES = ["minhop", "updn", "dfsssp", *LAYERED]
# A table row that runs an engine with settings: row name -> (engine, routing_route_net
# arguments for ibsm, opensm.conf lines and flags for OpenSM). Both SMs' nue default to
# one VL (nue_max_num_vls 1); "nue8" lets both use 8 (OpenSM needs -Q for the SL2VL).
# Engines whose deadlock freedom rests on SLs (virtual layers or datelines).
SL_ENGINES = {"dfsssp", "lash", "lash-mesh", "nue8", "torus-2QoS"}
VARIANTS = {
    "nue8": ("nue", ["--nue-vls", "8"], "nue_max_num_vls 8\n", ["-Q"]),
    "lash-mesh": ("lash", ["--mesh-analysis"], "do_mesh_analysis TRUE\n", []),
}
# name: (net file in TOPOS, or gen_fabric.py arguments), engines
FABRICS = {
    "fattree-648": ("fattree-648.net", TREE_ENGINES),
    "ft3-5184": ("ft3-5184.net", TREE_ENGINES),
    "ft3-5184-f2": (["ft3", "--pods", "16", "--fail-links", "0.02", "--seed", "1"], TREE_ENGINES),
    "ft3-11664": (["ft3", "--pods", "36"], TREE_ENGINES),
    "torus-6x6x6-432": ("torus-6x6x6-432.net", TORUS_ENGINES),
    "ft3-24p8-f3": ("ft3-24p8-f3.net", TREE_ENGINES),
    "kary-4-3-64": ("kary-4-3-64.net", TREE_ENGINES),
    "kary-18-3-5832": ("kary-18-3-5832.net", [*TREE_ENGINES, "nue"]),
    "dfly-2-4-2-72": ("dfly-2-4-2-72.net", IRREGULAR_ENGINES),
    "jelly-64-r6-256": ("jelly-64-r6-256.net", IRREGULAR_ENGINES),
    "random-40sw-160": ("random-40sw-160.net", IRREGULAR_ENGINES),
    "df-1056": (["dfly", "--p", "4", "--a", "8", "--h", "4"], ["minhop", "updn", "dfsssp"]),
    "jf-1200-f3": (["jelly", "--switches", "200", "--net-ports", "12", "--hosts", "6",
                    "--fail-links", "0.03", "--seed", "1"], ["minhop", "updn", "dfsssp"]),
}
DEFAULT = ["fattree-648", "ft3-5184", "ft3-5184-f2", "ft3-11664", "torus-6x6x6-432"]
QUICK = ["kary-4-3-64", "fattree-648", "torus-6x6x6-432"]


def fabric_file(name: str, workdir: Path) -> Path:
    src = FABRICS[name][0] if name in FABRICS else name
    if isinstance(src, list):
        out = workdir / "fabrics" / f"{name}.net"
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([sys.executable, str(GEN), *src, "-o", str(out)], check=True)
        return out
    p = Path(src)
    return p if p.is_absolute() or p.exists() else TOPOS / src


def torus_config(model: NetModel, path: Path) -> Path | None:
    """torus-2QoS.conf for a 3D torus whose switches are named t<x>_<y>_<z> (GUIDs follow file
    order from 0x200000, as ibsim assigns them): the size and one +x/+y/+z link from (0,0,0)."""
    guid, dims = {}, [0, 0, 0]
    for i, name in enumerate(model.switches):
        m = re.fullmatch(r"t(\d+)_(\d+)_(\d+)", name)
        if not m:
            return None
        c = tuple(int(v) for v in m.groups())
        guid[c] = 0x200000 + i
        dims = [max(d, v + 1) for d, v in zip(dims, c)]
    lines = ["torus " + " ".join(map(str, dims))]
    for axis, unit in zip("xyz", ((1, 0, 0), (0, 1, 0), (0, 0, 1))):
        lines.append(f"{axis}p_link 0x{guid[(0, 0, 0)]:x} 0x{guid[unit]:x}")
    path.write_text("\n".join(lines) + "\n")
    return path


# ------------------------------------------------------------------------------- grading

def parse_route_net(out: str) -> dict:
    """The numbers routing_route_net prints (see its source for the line formats)."""
    r: dict = {}
    pats = {
        "route_s": r"^routing ([\d.e+-]+) s wall",
        "pairs": r"^pairs (\d+)", "delivered": r"delivered (\d+)",
        "loops": r"loops (\d+)", "holes": r"black holes (\d+)",
        "efi": r"max \(EFI\) (\d+)", "unused": r"unused (\d+)", "channels": r"^channels (\d+)",
        "ebb": r"^ebb mean ([\d.]+)", "ebb_min": r"^ebb mean [\d.]+ min ([\d.]+)",
        "shift_worst": r"^shift worst (\d+)", "shift_mean": r"^shift worst \d+ mean ([\d.]+)",
        "hops": r"^paths mean hops ([\d.]+)", "nonmin": r"non-minimal ([\d.]+) %",
        "layers": r"^layers (\d+)",
    }
    for k, p in pats.items():
        m = re.search(p, out, re.M)
        if m:
            v = m.group(1)
            r[k] = float(v) if any(ch in v for ch in ".e") else int(v)
    vls = re.findall(r"^cdg vl (\d+) dependencies \d+ (acyclic|CYCLE)", out, re.M)
    r["cdg"] = "acyclic" if vls and all(a == "acyclic" for _, a in vls) else ("cycle" if vls else None)
    return r


def run_route_net(route_net: Path, args: list[str], timeout: float) -> tuple[dict, str]:
    t0 = time.monotonic()
    cp = subprocess.run([str(route_net), *args], capture_output=True, text=True, timeout=timeout)
    out = cp.stdout + cp.stderr
    r = parse_route_net(cp.stdout) if cp.returncode == 0 else {}
    r["grade_s"] = time.monotonic() - t0
    if cp.returncode != 0:
        r["error"] = out.strip().splitlines()[-1][:300] if out.strip() else f"rc {cp.returncode}"
    return r, out


# ------------------------------------------------------------------------------- OpenSM

LOG_TS = re.compile(r"^\w{3} [ \d]\d (\d\d):(\d\d):(\d\d) (\d{6}) ")


def log_time(line: str) -> float | None:
    m = LOG_TS.match(line)
    if not m:
        return None
    h, mi, s, us = (int(x) for x in m.groups())
    return h * 3600 + mi * 60 + s + us / 1e6


def opensm_phases(log: str) -> dict:
    master = configured = up = None
    used = None
    for line in log.splitlines():
        if master is None and "Entering MASTER state" in line:
            master = log_time(line)
        m = re.search(r"-> osm_ucast_mgr_process: (\S+) tables configured", line)
        if m and configured is None:
            configured, used = log_time(line), m.group(1)
        if up is None and "SUBNET UP" in line:
            up = log_time(line)
    r = {"used": used}
    if master is not None and configured is not None:
        r["route_s"] = (configured - master) % 86400
    if master is not None and up is not None:
        r["master_to_up_s"] = (up - master) % 86400
    return r


def run_opensm(fabric: Path, row: str, wd: Path, keep: Path, timeout: float) -> dict:
    """One OpenSM run; its LFT dump and guid2lid are moved to `keep` for grading."""
    model = NetModel(fabric)
    wd.mkdir(parents=True, exist_ok=True)
    engine, _, conf_lines, flags = VARIANTS.get(row, (row, [], "", []))
    extra = ["-R", engine, "-D", "0x43", *flags]
    if conf_lines:
        conf_file = wd / "opensm.conf"
        conf_file.write_text(conf_lines)
        extra += ["-F", str(conf_file)]
    if engine == "torus-2QoS":
        extra.append("-Q")  # OpenSM refuses torus-2QoS without QoS (ERR 4E44)
        conf = torus_config(model, wd / "torus-2QoS.conf")
        if conf:
            extra += ["--torus_config", str(conf)]
    sim = Simulator(fabric, wd / "sim", "rbench")
    proc = SMProcess(OpenSM(), sim, model.cas[0], wd / "sm", once=True, extra=extra)
    r: dict = {}
    try:
        sim.start(timeout=300)
        proc.start()
        _, _, ru = _wait4(proc.proc, timeout)
        r["rc"] = proc.proc.returncode
        r["exit_s"] = time.monotonic() - proc.t_start
        if ru is not None:
            r["rss_mb"] = ru.ru_maxrss / 1024
            r["cpu_s"] = ru.ru_utime + ru.ru_stime
        r.update(opensm_phases(proc.log()))
    except (HarnessError, subprocess.TimeoutExpired) as e:
        r["error"] = f"OpenSM run failed: {str(e)[:300]}"
        return r
    finally:
        proc.kill()
        sim.stop()
    dump = proc.dumpdir / "opensm-lfts.dump"
    g2l = proc.cache_dir / "guid2lid"
    if not dump.exists() or not g2l.exists():
        r["error"] = "OpenSM wrote no opensm-lfts.dump / guid2lid"
        return r
    shutil.rmtree(keep, ignore_errors=True)
    keep.mkdir(parents=True)
    shutil.move(str(dump), keep / "opensm-lfts.dump")
    shutil.move(str(g2l), keep / "guid2lid")
    return r


def grade_opensm(fabric: Path, keep: Path, route_net: Path, patterns: int, timeout: float) -> dict:
    g, _ = run_route_net(route_net, [str(fabric), "--load-lfts", str(keep / "opensm-lfts.dump"),
                                     "--guid2lid", str(keep / "guid2lid"), "--patterns",
                                     str(patterns)], timeout)
    g.pop("route_s", None)  # that would be the time to read the dump, not OpenSM's
    return g


# ------------------------------------------------------------------------------- report

COLS = [("route_s", "routing s", ".3f"), ("efi", "EFI", "d"), ("unused", "unused ch.", "d"),
        ("ebb", "eBB mean", ".3f"), ("ebb_min", "eBB min", ".3f"),
        ("shift_worst", "shift worst", "d"), ("shift_mean", "shift mean", ".2f"),
        ("hops", "mean hops", ".2f"), ("nonmin", "non-min %", ".1f"), ("cdg", "CDG", "s")]


def fmt(v, spec):
    if v is None:
        return "-"
    if spec == "d":
        return str(int(v))
    if spec == "s":
        return str(v)
    return format(v, spec)


def table(name: str, model_desc: str, rows: dict) -> str:
    out = [f"### {name} ({model_desc})", "",
           "| engine | SM | " + " | ".join(c[1] for c in COLS) + " | note |",
           "|---|---|" + "---|" * len(COLS) + "---|"]
    for engine, per_sm in rows.items():
        for sm in ("ibsm", "opensm"):
            r = per_sm.get(sm)
            if r is None:
                continue
            note = []
            if r.get("error"):
                note.append(r["error"].split(";")[0][:120])
            if sm == "opensm" and r.get("used") and r["used"] != VARIANTS.get(engine, (engine,))[0]:
                note.append(f"fell back to {r['used']}")
            if r.get("pairs") and r.get("delivered") != r.get("pairs"):
                note.append(f"{r['pairs'] - r['delivered']} pairs undelivered")
            if sm == "opensm" and r.get("master_to_up_s") is not None:
                note.append(f"MASTER->UP {r['master_to_up_s']:.1f} s")
            out.append(f"| {engine} | {sm} | " + " | ".join(fmt(r.get(k), s) for k, _, s in COLS)
                       + f" | {'; '.join(note)} |")
        o, i = per_sm.get("opensm"), per_sm.get("ibsm")
        if o and i and not o.get("error") and not i.get("error"):
            def ratio(k):
                a, b = i.get(k), o.get(k)
                if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or not b:
                    return "-"
                return f"{a / b:.2f}"
            out.append(f"| {engine} | ours/OpenSM | " + " | ".join(
                ratio(k) if s != "s" else "" for k, _, s in COLS) + " | |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    ap.add_argument("--fabric", action="append", help="fabric name or net file (repeatable)")
    ap.add_argument("--engine", action="append", help="engine (repeatable; default per fabric)")
    ap.add_argument("--sm", default="ibsm,opensm")
    ap.add_argument("--route-net", type=Path,
                    default=Path(os.environ.get("ROUTE_NET", ROOT / "build" / "tests" / "unit" /
                                                "routing" / "routing_route_net")))
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/ibsm-routing-bench"))
    ap.add_argument("--patterns", type=int, default=100, help="random bisections for eBB")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--fresh", action="store_true", help="ignore cached results")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--collect-only", action="store_true",
                    help="only run OpenSM and keep its dumps (grade in a later run)")
    args = ap.parse_args(argv)
    if not args.route_net.exists() and not args.collect_only:
        print(f"no {args.route_net}: build tests/unit/routing/routing_route_net or pass "
              "--route-net", file=sys.stderr)
        return 2
    ours = set()
    if args.route_net.exists():
        ours = set(subprocess.run([str(args.route_net), "--list-engines"], capture_output=True,
                                  text=True).stdout.split())
    sms = args.sm.split(",")
    names = args.fabric or (QUICK if args.quick else DEFAULT)
    args.workdir.mkdir(parents=True, exist_ok=True)
    results: dict = {}
    tables = []
    for name in names:
        fabric = fabric_file(name, args.workdir).resolve()
        model = NetModel(fabric)
        desc = f"{len(model.switches)} switches, {len(model.cas)} hosts"
        engines = args.engine or (FABRICS[name][1] if name in FABRICS else TREE_ENGINES)
        rows: dict = {}
        for engine in engines:
            rows[engine] = {}
            for sm in sms:
                cache = args.workdir / "results" / f"{Path(name).stem}.{engine}.{sm}.json"
                if cache.exists() and not args.fresh:
                    rows[engine][sm] = json.loads(cache.read_text())
                    continue
                t0 = time.monotonic()
                if sm == "ibsm":
                    real, extra, _, _ = VARIANTS.get(engine, (engine, [], "", []))
                    if args.collect_only or real not in ours:
                        continue
                    extra = list(extra)
                    if engine == "torus-2QoS":
                        conf = torus_config(model, args.workdir / f"{Path(name).stem}.torus.conf")
                        extra = ["--torus-config", str(conf)] if conf else []
                    r, _ = run_route_net(args.route_net, [str(fabric), real, "--patterns",
                                                          str(args.patterns), *extra], args.timeout)
                else:
                    stem = f"{Path(name).stem}.{engine}"
                    keep = args.workdir / "dumps" / stem
                    run_json = args.workdir / "runs" / f"{stem}.json"
                    if run_json.exists() and not args.fresh:
                        r = json.loads(run_json.read_text())
                    else:
                        wd = args.workdir / "work" / stem
                        shutil.rmtree(wd, ignore_errors=True)
                        r = run_opensm(fabric, engine, wd, keep, args.timeout)
                        shutil.rmtree(wd, ignore_errors=True)
                        r["load"] = os.getloadavg()[0]
                        run_json.parent.mkdir(parents=True, exist_ok=True)
                        run_json.write_text(json.dumps(r))
                        print(f"# {name} {engine} opensm run: {time.monotonic() - t0:.1f} s "
                              f"{json.dumps(r)}", file=sys.stderr, flush=True)
                    if args.collect_only:
                        continue
                    if not r.get("error"):
                        r.update(grade_opensm(fabric, keep, args.route_net, args.patterns,
                                              args.timeout))
                        if engine in SL_ENGINES:
                            # Its LFT dump has no SLs: a one-VL check would call the layers
                            # a cycle. (ibsm's rows check every VL with the engine's SLs.)
                            r["cdg"] = "SLs not dumped"
                        shutil.rmtree(keep, ignore_errors=True)  # up to GBs on big fabrics
                r.setdefault("load", os.getloadavg()[0])
                print(f"# {name} {engine} {sm}: {time.monotonic() - t0:.1f} s "
                      f"{json.dumps(r)}", file=sys.stderr, flush=True)
                cache.parent.mkdir(parents=True, exist_ok=True)
                cache.write_text(json.dumps(r))
                rows[engine][sm] = r
        results[name] = rows
        tables.append(table(name, desc, rows))
    print(f"Routing engines, {datetime.date.today()}, {os.cpu_count()} CPUs, eBB over "
          f"{args.patterns} random bisections\n")
    print("\n\n".join(tables))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
