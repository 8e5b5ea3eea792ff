"""Once mode (-o): one sweep, exit 0, fabric left configured; cold restart keeps LIDs."""

from __future__ import annotations

import os

import pytest

import checks
from conftest import ONCE_FABRICS
from ibsimlib import SMProcess

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "90"))

pytestmark = pytest.mark.parametrize("fabric", ONCE_FABRICS, indirect=True, scope="module")


def _once(sm, sim, fabric, workdir, cache, sm_procs) -> SMProcess:
    proc = SMProcess(sm, sim, fabric.sm_node, workdir, once=True, cache_dir=cache)
    sm_procs.append(proc)
    rc = proc.start().wait_exit(ONCE_TIMEOUT)
    where = f"[{fabric.name} / {sm.name} -o on {fabric.sm_node}]"
    assert rc == 0, f"{where} exit code {rc}\n{proc.tail()}"
    assert proc.count_up() >= 1, f"{where} exited 0 without SUBNET UP in its log\n{proc.tail()}"
    return proc


def test_once_then_cold_restart_keeps_lids(fabric, sm, sims, sm_procs, workdir):
    """Run -o, judge the fabric, kill the simulator, start a fresh one on the same
    net file, run -o again with the same cache dir: every port gets its old LID."""
    cache = workdir / "cache"
    where = f"[{fabric.name} / {sm.name}]"

    sim1 = sims(fabric, "first")
    _once(sm, sim1, fabric, workdir / "run1", cache, sm_procs)
    topo1, problems = checks.guarded_full_check(sim1, fabric.judge, fabric.model, fabric.sm_node,
                                                sminfo=False, tracert=False)
    assert not problems, f"{where} after -o:\n  " + "\n  ".join(problems[:40])
    lids1 = checks.lid_map(topo1)
    sim1.stop()

    sim2 = sims(fabric, "restart")
    fresh = checks.lid_map(checks.discover(sim2, fabric.judge))
    assert set(fresh.values()) == {0}, f"{where} new simulator is not cold: {fresh}"
    _once(sm, sim2, fabric, workdir / "run2", cache, sm_procs)
    topo2, problems = checks.guarded_full_check(sim2, fabric.judge, fabric.model, fabric.sm_node,
                                                sminfo=False, tracert=False)
    assert not problems, f"{where} after cold restart:\n  " + "\n  ".join(problems[:40])
    lids2 = checks.lid_map(topo2)
    changed = [f"{port}: LID {lids1.get(port)} -> {lid}" for port, lid in sorted(lids2.items())
               if lids1.get(port) != lid]
    assert not changed, f"{where} LIDs changed across a cold restart with the same " \
                        f"OSM_CACHE_DIR:\n  " + "\n  ".join(changed)
