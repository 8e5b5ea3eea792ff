"""force_link_speed / force_link_width in opensm.conf: what the links run afterwards.

ibsim models LinkSpeedEnabled and LinkWidthEnabled Sets (a Set changes the speed and
width both ends of the link report active), so `smpquery portinfo` on every switch
port and CA port shows whether the SM programmed them. The error thresholds
(local_phy_errors_threshold, overrun_errors_threshold) and fdr10 are not modelled
by ibsim: they are unit-tested against the fake fabric
(tests/unit/sm/port_config_test.cpp, fdr10_test.cpp). Both SMs run the same file,
so the expectations are OpenSM's.
"""

from __future__ import annotations

import os
import re

import pytest

import checks
from ibsimlib import run_tool

UP_TIMEOUT = float(os.environ.get("IBSIM_UP_TIMEOUT", "30"))

pytestmark = pytest.mark.parametrize("fabric", ["ex-2sw2path4hca"], indirect=True,
                                     scope="module")

# SDR only (IBA 14.2.5.6: LinkSpeedEnabled 1 = 2.5 Gb/s), 1X only (LinkWidthEnabled 1).
CONF = "force_link_speed 1\nforce_link_width 1\n"


def _field(text: str, name: str) -> str:
    m = re.search(rf"^{name}:\.*(.*)$", text, re.M)
    return m.group(1).strip() if m else ""


def _port_speeds(sim, node, lid: int, port: int) -> dict[str, str]:
    out = run_tool(sim, node, ["smpquery", "portinfo", str(lid), str(port)]).stdout
    return {f: _field(out, f) for f in ("LinkSpeedEnabled", "LinkSpeedActive",
                                        "LinkWidthEnabled", "LinkWidthActive", "LinkState")}


def test_forced_speed_and_width_reach_every_link(fabric, sm, sims, sm_procs, workdir):
    where = f"[{fabric.name} / {sm.name} force_link_speed 1, force_link_width 1]"
    proc, topo = checks.start_configured(sm, sims(fabric), fabric, workdir, sm_procs, CONF,
                                         UP_TIMEOUT, where)
    seen = [(n.desc, p.num, _port_speeds(proc.sim, fabric.judge, lid, p.num))
            for n, p, lid in checks.connected_ports(topo)]
    assert seen, f"{where} no connected port found"
    bad = [f"{d} port {num}: {got}" for d, num, got in seen
           if got["LinkSpeedEnabled"] != "2.5 Gbps" or got["LinkSpeedActive"] != "2.5 Gbps"
           or got["LinkWidthEnabled"] != "1X" or got["LinkWidthActive"] != "1X"
           or got["LinkState"] != "Active"]
    assert not bad, f"{where} ports not at SDR 1X (or not Active):\n  " + "\n  ".join(bad)
