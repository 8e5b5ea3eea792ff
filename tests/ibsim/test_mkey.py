"""M_Key in opensm.conf (m_key, m_key_protection_level, m_key_lease_period): the SM
brings an ibsim fabric up as OpenSM does.  ibsim does not model M_Key (it neither
checks the header key nor stores the PortInfo M_Key fields, docs/ha-security notes),
so this only shows that configuring a key breaks nothing and that guid2mkey is
written; the key rules themselves are unit-tested against the fake fabric
(tests/unit/sm/mkey_test.cpp)."""

from __future__ import annotations

import os

import pytest

import checks
from ibsimlib import SMProcess

ONCE_TIMEOUT = float(os.environ.get("IBSIM_ONCE_TIMEOUT", "90"))

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True,
                                     scope="module")

CONF = "m_key 0x0000000000001234\nm_key_protection_level 2\nm_key_lease_period 60\n"


def test_mkey_configured_fabric_comes_up_twice(fabric, sm, sims, sm_procs, workdir):
    conf = workdir / "opensm.conf"
    conf.write_text(CONF)
    cache = workdir / "cache"
    for run in ("first", "restart"):
        # A fresh simulator per run: umad2sim does not take a second SM process on a
        # node whose first one exited (test_once does the same).
        sim = sims(fabric, run)
        where = f"[{fabric.name} / {sm.name} m_key 0x1234, {run} run]"
        proc = SMProcess(sm, sim, fabric.sm_node, workdir / run, once=True, cache_dir=cache,
                         extra=["-F", str(conf)])
        sm_procs.append(proc)
        rc = proc.start().wait_exit(ONCE_TIMEOUT)
        assert rc == 0, f"{where} exit code {rc}\n{proc.tail()}"
        assert proc.count_up() >= 1, f"{where} no SUBNET UP\n{proc.tail()}"
        _, problems = checks.guarded_full_check(sim, fabric.judge, fabric.model, fabric.sm_node,
                                                sminfo=False, tracert=False)
        assert not problems, f"{where}:\n  " + "\n  ".join(problems[:40])
        g2m = cache / "guid2mkey"
        assert g2m.exists(), f"{where} no guid2mkey in {cache}"
        # One record per CA port and switch port 0; ibsim keeps M_Key 0 whatever was set.
        records = [line.split() for line in g2m.read_text().splitlines() if line.strip()]
        assert len(records) >= len(fabric.model.cas), f"{where} guid2mkey: {records}"
        sim.stop()
