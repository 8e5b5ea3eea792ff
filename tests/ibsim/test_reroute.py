"""Re-routing after an inter-switch link fails and comes back (Unlink / ReLink on ibsim's
console), with and without the unicast cache (-A), judged from outside: ibnetdiscover
finds the fabric, ibroute's tables route every CA pair (an independent walk), no LFT
entry points at the dead port, and after ReLink the link carries routes again.
ibsim sends Trap 128 on Unlink (not on ReLink: the light sweep, -s 1, finds that)."""

from __future__ import annotations

import time

import pytest

import checks
from conftest import make_fabric
from ibsimlib import Ibsm, OpenSM, SMProcess

UP_TIMEOUT = 30.0
SETTLE_TIMEOUT = 30.0


@pytest.fixture(scope="module")
def fabric(fabric_dir):
    return make_fabric("ft2-4x4", fabric_dir)


def _isl(model):
    """The first spine-leaf link (by name) that neither the SM's nor the judge's leaf holds."""
    for (a, pa), (b, pb) in sorted(model.links()):
        if model.nodes[a].is_switch and model.nodes[b].is_switch:
            return a, pa, b, pb
    pytest.fail("no inter-switch link")


def _settle(proc, sim, fabric, model, check_extra, what):
    """Judge until every check passes, or fail at the deadline with the last problems."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        assert proc.alive(), f"SM exited {what}\n{proc.tail()}"
        topo, problems = checks.guarded_full_check(sim, fabric.judge, model, fabric.sm_node,
                                                   sminfo=False, tracert=False)
        if not problems:
            problems = check_extra(topo)
        if not problems:
            return topo
        if time.monotonic() >= deadline:
            pytest.fail(f"not settled {what} after {SETTLE_TIMEOUT}s:\n  " + "\n  ".join(problems[:20])
                        + f"\n{proc.tail()}")
        time.sleep(0.2)


def _entries_to(topo, sim, judge, switch_desc, port):
    """How many LFT entries of that switch lead out of `port`."""
    sw = next(n for n in topo.nodes.values() if n.is_switch and n.desc == switch_desc)
    table = checks.read_lfts(sim, judge, topo)[sw.guid]
    return sum(1 for out in table.values() if out == port)


@pytest.mark.parametrize("kind", ["ibsm", "ibsm-A", "opensm"])
def test_unlink_then_relink(kind, fabric, sims, sm_procs, workdir):
    impl = Ibsm() if kind.startswith("ibsm") else OpenSM()
    if why := impl.available():
        pytest.skip(why)
    extra = (["-d", "2"] if kind.startswith("ibsm") else []) + (["-A"] if kind.endswith("-A") else [])
    sim = sims(fabric)
    proc = SMProcess(impl, sim, fabric.sm_node, workdir / "sm", once=False, sweep=1, extra=extra)
    sm_procs.append(proc)
    proc.start()
    proc.wait_up(UP_TIMEOUT)
    a, pa, b, pb = _isl(fabric.model)
    model = fabric.model.copy()
    model.unlink(a, pa)

    ups = proc.count_up()
    sim.command(f'Unlink "{a}"[{pa}]')
    proc.wait_up(SETTLE_TIMEOUT, ups + 1)

    def no_dead_port(topo):
        return [f"{sw}: {n} LFT entries still leave by the dead port {p}"
                for sw, p in ((a, pa), (b, pb))
                if (n := _entries_to(topo, sim, fabric.judge, sw, p))]
    _settle(proc, sim, fabric, model, no_dead_port, f"after Unlink {a}[{pa}]")
    if kind.startswith("ibsm"):
        log = proc.log()
        assert "targeted sweep: 1 link down" in log, proc.tail()
        if kind == "ibsm-A":
            assert "ucast cache: " in log and "LIDs recomputed" in log, proc.tail()

    ups = proc.count_up()
    sim.command(f'ReLink "{a}"[{pa}]')
    proc.wait_up(SETTLE_TIMEOUT, ups + 1)

    def link_used(topo):
        return [] if _entries_to(topo, sim, fabric.judge, a, pa) else \
            [f"{a}[{pa}] is back but no route uses it"]
    _settle(proc, sim, fabric, fabric.model, link_used, f"after ReLink {a}[{pa}]")
    if kind.startswith("ibsm"):
        assert "targeted sweep: 1 link up" in proc.log(), proc.tail()
