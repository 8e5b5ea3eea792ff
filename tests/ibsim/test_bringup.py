"""Daemon mode: start the SM, wait for SUBNET UP, judge the fabric while it runs, SIGTERM it."""

from __future__ import annotations

import os
import signal

import pytest

import checks
from conftest import BRINGUP_FABRICS
from ibsimlib import HarnessError, SMProcess, Simulator

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))
STOP_LIMIT = float(os.environ.get("IBSIM_STOP_LIMIT", "1.0"))
OK_EXIT = {0, -signal.SIGTERM, 128 + signal.SIGTERM}

pytestmark = pytest.mark.parametrize("fabric", BRINGUP_FABRICS, indirect=True, scope="module")


class Running:
    def __init__(self, fabric, sm, sim, proc):
        self.fabric, self.sm, self.sim, self.proc = fabric, sm, sim, proc
        self._topo = None

    @property
    def topo(self):
        if self._topo is None:
            self._topo = checks.discover(self.sim, self.fabric.judge)
        return self._topo

    def check(self, what, fn):
        """Run a check; a judge that fails (e.g. no answer) is a problem, not a crash."""
        try:
            problems = fn()
        except HarnessError as e:
            problems = [f"judge failed: {e}"]
        assert not problems, self.msg(what, problems)

    def msg(self, what, problems):
        return (f"[{self.fabric.name} / {self.sm.name} on {self.fabric.sm_node}, judge "
                f"{self.fabric.judge}] {what}:\n  " + "\n  ".join(problems[:40]))


@pytest.fixture(scope="module")
def running(fabric, sm, tmp_path_factory):
    wd = tmp_path_factory.mktemp(f"up-{fabric.name}-{sm.name}")
    sim = Simulator(fabric.path, wd / "sim", "up")
    proc = SMProcess(sm, sim, fabric.sm_node, wd / "sm", once=False)
    try:
        sim.start()
        proc.start()
        proc.wait_up(UP_TIMEOUT)
        yield Running(fabric, sm, sim, proc)
    finally:
        proc.kill()
        sim.stop()


def test_discovery_every_node_port_and_lid(running):
    f = running.fabric
    running.check("ibnetdiscover",
                  lambda: checks.check_discovery(running.topo, f.model, f.sm_node))


def test_all_links_active(running):
    f = running.fabric
    running.check("iblinkinfo port states",
                  lambda: checks.check_active(running.sim, f.judge, f.model, f.sm_node))


def test_sminfo_reports_this_master(running):
    f = running.fabric
    running.check("sminfo", lambda: checks.check_sminfo(running.sim, f.judge, running.topo, f.sm_node))


def test_lfts_complete_and_loop_free(running):
    running.check("ibroute tables", lambda: checks.check_lfts(
        running.topo, checks.read_lfts(running.sim, running.fabric.judge, running.topo)))


def test_ibtracert_from_several_cas(running):
    running.check("ibtracert",
                  lambda: checks.check_tracert(running.sim, running.fabric.judge, running.topo))


def test_sigterm_stops_promptly(running):
    assert running.proc.alive(), running.msg("SM died while being judged",
                                             [running.proc.tail()])
    took, rc = running.proc.stop(signal.SIGTERM, STOP_LIMIT)
    assert took <= STOP_LIMIT and rc in OK_EXIT, running.msg(
        "SIGTERM", [f"exit code {rc} after {took:.2f}s (limit {STOP_LIMIT}s)", running.proc.tail()])
