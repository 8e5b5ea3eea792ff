"""Slurm's topology.conf from the fabric (issue 36's acceptance), on ibsim: ibsm with
slurm_topology_file set on a fat tree (kary-4-3-64), a dragonfly (dfly-2-4-2-72), a
random switch graph (random-40sw-160) and a 3-level Clos with 3% of its inter-switch
links missing (ft3-24p8-f3, 1152 hosts).  Every host must sit under the leaf switch that
`ibnetdiscover` shows it on, exactly once, under one top that reaches every host; the
file must be what `ibsm-ctl topology` prints; and Slurm's own parser (slurmctld 22.05
from Debian, TopologyPlugin=topology/tree, in a scratch directory, as root) must take
it with no topology warning and `scontrol show topology` must show the same tree.  The
Slurm part is skipped when slurmctld is absent or we are not root.  ibsm only: OpenSM
has no such file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from ibsimlib import Ibsm, NetModel, SMProcess, Simulator, Topology, free_tcp_port, run_tool, wait_for

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "40"))
CTL = os.environ.get("IBSM_CTL_BIN") or (str(Path(os.environ.get("IBSM_BIN", "")).parent.parent / "ctl" / "ibsm-ctl"))
GEN_FABRIC = Path(__file__).resolve().parents[2] / "fabrics" / "gen_fabric.py"
# The fabrics, made by the tree's own generator (fabrics/gen_fabric.py, seeded), so the
# test needs nothing beside the checkout; the names are those of ../shared/topologies.
GENERATED = {
    "kary-4-3-64.net": ["kary", "--k", "4", "--n", "3"],
    "dfly-2-4-2-72.net": ["dfly", "--p", "2", "--a", "4", "--h", "2"],
    "random-40sw-160.net": ["jelly", "--switches", "40", "--net-ports", "4", "--hosts", "4",
                            "--seed", "1"],
    "ft3-24p8-f3.net": ["ft3", "--radix", "24", "--pods", "8", "--fail-links", "0.03",
                        "--seed", "1"],
}
FABRICS = list(GENERATED)


def generated(name: str, work: Path) -> Path:
    out = work / name
    subprocess.run([sys.executable, str(GEN_FABRIC), *GENERATED[name], "-o", str(out)],
                   check=True, capture_output=True, text=True, timeout=120)
    return out


def expand(hostlist: str) -> list[str]:
    """Slurm's reading of a hostlist: prefix[lo-hi,n] at the width of each low end."""
    out = []
    for tok in re.findall(r"[^,\[]+(?:\[[^\]]*\])?|\[[^\]]*\]", hostlist):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\]", tok)
        if not m:
            out.append(tok)
            continue
        for r in m.group(2).split(","):
            lo, _, hi = r.partition("-")
            for n in range(int(lo), int(hi or lo) + 1):
                out.append(f"{m.group(1)}{n:0{len(lo)}d}")
    return out


def parse_conf(text: str) -> dict[str, dict]:
    """topology.conf (or `scontrol show topology`) as {switch: {"nodes": [...], "switches": [...]}}."""
    out = {}
    for line in text.splitlines():
        if not line.startswith("SwitchName="):
            continue
        fields = dict(w.split("=", 1) for w in line.split())
        out[fields["SwitchName"]] = {"nodes": expand(fields.get("Nodes", "")),
                                     "switches": expand(fields.get("Switches", "")),
                                     "level": fields.get("Level")}
    return out


def ctl(sock: Path, *words: str) -> str:
    cp = subprocess.run([CTL, "--socket", str(sock), *words], capture_output=True, text=True, timeout=60)
    assert cp.returncode == 0, f"ibsm-ctl {' '.join(words)} exited {cp.returncode}\n{cp.stdout}\n{cp.stderr}"
    return cp.stdout


@contextmanager
def running(netfile: Path, work: Path):
    impl = Ibsm()
    reason = impl.available() or (None if os.access(CTL, os.X_OK) else f"ibsm-ctl not found at {CTL}")
    if not reason and not netfile.exists():
        reason = f"{netfile} not found"
    if reason:
        if os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {reason}")
        pytest.skip(reason)
    model = NetModel(netfile)
    sim = Simulator(netfile, work, tag="slurm").start()
    topo_file = work / "slurm" / "topology.conf"
    topo_file.parent.mkdir()
    conf = work / "opensm.conf"
    conf.write_text(f"sweep_interval 2\nlog_flags 0x03\nslurm_topology_file {topo_file}\n")
    sockdir = Path(tempfile.mkdtemp(prefix="ibsm-slurm-"))
    sock = sockdir / "ctl.sock"
    proc = SMProcess(impl, sim, model.cas[0], work / "sm", once=False,
                     extra=["-F", str(conf), "--ctl-socket", str(sock)])
    proc.start()
    try:
        proc.wait_up(UP_TIMEOUT)
        wait_for(topo_file.exists, 20, "slurm_topology_file")
        wait_for(sock.exists, 10, "the control socket")
        yield model, sim, proc, sock, topo_file
    finally:
        proc.kill()
        sim.stop()
        shutil.rmtree(sockdir, ignore_errors=True)


def leaf_of_each_host(sim: Simulator, judge: str) -> dict[str, str]:
    """{host: the switch ibnetdiscover shows its port 1 on}, by NodeDescription."""
    topo = Topology(run_tool(sim, judge, ["ibnetdiscover"]).stdout)
    out = {}
    for n in topo.nodes.values():
        if n.is_switch or 1 not in n.ports:
            continue
        out[n.desc.split()[0]] = topo.nodes[n.ports[1].peer_guid].desc
    return out


def slurmctld_check(conf_text: str, hosts: list[str], work: Path) -> tuple[str, str]:
    """slurmctld on `conf_text` in a scratch directory: (scontrol show topology, its log)."""
    d = work / "slurmctld"
    (d / "state").mkdir(parents=True)
    (d / "topology.conf").write_text(conf_text)
    port = free_tcp_port()
    lines = [
        "ClusterName=ibsmtest", "SlurmctldHost=localhost", "SlurmUser=root",
        "AuthType=auth/none", "CredType=cred/none", "MpiDefault=none", "MailProg=/bin/true",
        f"StateSaveLocation={d / 'state'}", f"SlurmdSpoolDir={d / 'spool'}",
        f"SlurmctldPidFile={d / 'slurmctld.pid'}", f"SlurmctldPort={port}",
        f"SlurmdPort={free_tcp_port()}", "SelectType=select/cons_tres",
        "TopologyPlugin=topology/tree",
    ]
    # NodeAddr: slurmctld resolves every node at start; the hosts are only names here.
    lines += [f"NodeName={h} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" for h in hosts]
    lines += ["PartitionName=all Nodes=ALL Default=YES"]
    (d / "slurm.conf").write_text("\n".join(lines) + "\n")
    env = dict(os.environ, SLURM_CONF=str(d / "slurm.conf"))
    log = d / "slurmctld.log"
    proc = subprocess.Popen(["slurmctld", "-D", "-c", "-i", "-f", str(d / "slurm.conf"), "-L", str(log)],
                            cwd=d, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        shown = ""

        def answered() -> bool:
            nonlocal shown
            if proc.poll() is not None:
                raise AssertionError(f"slurmctld exited {proc.returncode}:\n{log.read_text(errors='replace')[-3000:]}")
            cp = subprocess.run(["scontrol", "show", "topology"], env=env, capture_output=True, text=True, timeout=20)
            shown = cp.stdout
            return cp.returncode == 0 and "SwitchName=" in cp.stdout
        wait_for(answered, 60, "scontrol show topology")
        return shown, log.read_text(errors="replace")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.mark.parametrize("fabric", FABRICS)
def test_every_host_under_its_leaf_and_slurm_takes_it(fabric, tmp_path):
    with running(generated(fabric, tmp_path), tmp_path) as (model, sim, proc, sock, topo_file):
        text = topo_file.read_text()
        # The file is the command's output (same fabric, same options).
        assert ctl(sock, "topology") == text
        tree = parse_conf(text)
        doc = json.loads(ctl(sock, "topology", "--format", "json"))
        assert doc["top"] in tree and doc["skipped"] == [], doc["skipped"]

        # Every host under the leaf ibnetdiscover shows it on, exactly once.
        want = leaf_of_each_host(sim, model.cas[-1])
        assert len(want) == len(model.cas)
        placed: dict[str, str] = {}
        for name, sw in tree.items():
            assert not (sw["nodes"] and sw["switches"]), name
            for h in sw["nodes"]:
                assert h not in placed, f"{h} under {placed[h]} and {name}"
                placed[h] = name
        assert placed == want
        assert doc["hosts"] == len(want)

        # One top, reaching every host; every other switch is somebody's child once.
        children = [c for sw in tree.values() for c in sw["switches"]]
        assert sorted(children) == sorted(set(children))
        assert set(tree) - set(children) == {doc["top"]}

        def reach(name: str) -> set[str]:
            sw = tree[name]
            return set(sw["nodes"]).union(*[reach(c) for c in sw["switches"]])
        assert reach(doc["top"]) == set(want)

        if shutil.which("slurmctld") is None or shutil.which("scontrol") is None:
            pytest.skip("slurmctld not installed (Debian's slurmctld): Slurm's parser not run")
        if os.geteuid() != 0:
            pytest.skip("slurmctld runs as root here (SlurmUser=root)")
        shown, log = slurmctld_check(text, sorted(want), tmp_path)
        # Slurm's own complaints about the tree (the scratch directory's path aside).
        bad = [line for line in log.replace(str(tmp_path), "<tmp>").splitlines()
               if re.search(r"(?i)\b(warning|error|fatal)\b", line) and re.search(r"(?i)topolog|switch|leaf", line)]
        assert bad == [], "\n".join(bad)
        seen = parse_conf(shown)
        assert set(seen) == set(tree)
        for name, sw in tree.items():
            assert sorted(seen[name]["switches"]) == sorted(sw["switches"]), name
            if sw["nodes"]:
                assert sorted(seen[name]["nodes"]) == sorted(sw["nodes"]), name
        assert sorted(seen[doc["top"]]["nodes"]) == sorted(want)


def test_the_file_changes_with_the_fabric(tmp_path):
    """A host cable pulled: the next heavy sweep rewrites the file without that host."""
    with running(generated("kary-4-3-64.net", tmp_path), tmp_path) as (model, sim, proc, sock, topo_file):
        before = topo_file.read_text()
        victim = model.cas[-1]
        assert victim in expand(",".join(re.findall(r"Nodes=(\S+)", before)))
        mtime = topo_file.stat().st_mtime_ns
        up = proc.count_up()
        sim.command(f'Unlink "{victim}"')
        ctl(sock, "resweep", "heavy")
        wait_for(lambda: proc.count_up() > up, UP_TIMEOUT, "the heavy sweep after the unlink")
        wait_for(lambda: topo_file.stat().st_mtime_ns != mtime, 20, "the rewritten file")
        after = topo_file.read_text()
        assert victim not in expand(",".join(re.findall(r"Nodes=(\S+)", after)))
        assert after == ctl(sock, "topology")
        # A heavy sweep that changes nothing leaves the file alone.
        mtime = topo_file.stat().st_mtime_ns
        up = proc.count_up()
        ctl(sock, "resweep", "heavy")
        wait_for(lambda: proc.count_up() > up, UP_TIMEOUT, "another heavy sweep")
        assert topo_file.stat().st_mtime_ns == mtime
