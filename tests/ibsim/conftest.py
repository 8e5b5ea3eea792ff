"""pytest fixtures for the ibsim suite: fabrics, simulators, SMs under test.

Env:
  IBSM_BIN       path of the ibsm binary (ibsm cases skip while unset/missing)
  IBSM_REQUIRE=1 turn that skip into a failure (CI)
  IBSIM_SM       run only one SM: "opensm" or "ibsm"
  IBSIM_KEEP=1   keep work dirs (logs) of passing tests too
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "fabrics"))

import gen_fabric  # noqa: E402
from ibsimlib import Ibsm, NetModel, OpenSM, Simulator  # noqa: E402

EXAMPLES = Path("/usr/share/doc/ibsim-utils/net-examples")


class Fabric:
    """A net file plus where the SM runs and where the judges run."""

    def __init__(self, name: str, path: Path, sm_node: str | None = None, judge: str | None = None):
        self.name = name
        self.path = path
        self.model = NetModel(path)
        cas = self.model.cas
        self.sm_node = sm_node or cas[0]
        self.judge = judge or next(c for c in reversed(cas) if c != self.sm_node)

    def __repr__(self):
        return f"<fabric {self.name}>"


# name -> (source, sm node, judge).  source: Path of an existing net file, or a
# callable returning a gen_fabric.Fabric.  Keep them small: ibsim is single
# threaded and every judge is a separate process.
FABRICS = {
    # ibsim's examples; "net" runs the SM on a switch (port 0), the default node
    "ex-net": (EXAMPLES / "net", "Switch1", "Hca1"),
    "ex-2sw2path": (EXAMPLES / "net.2sw2path", "Hca1", "Hca2"),
    "ex-2sw2path4hca": (EXAMPLES / "net.2sw2path4hca", "Hca1", "Hca4"),
    "ex-2sw2path4hca2port": (EXAMPLES / "net.2sw2path4hca2port", "Hca1", "Hca2"),
    # generated
    "ft2-4x4": (lambda: gen_fabric.ft2(radix=8, leaves=4, hosts_per_leaf=4, spines=4), None, None),
    "ft2-parallel": (lambda: gen_fabric.ft2(radix=8, leaves=3, hosts_per_leaf=2, spines=2, parallel=2),
                     None, None),
    "ft2-2port": (lambda: gen_fabric.ft2(radix=8, leaves=3, hosts_per_leaf=2, spines=2, hca_ports=2),
                  None, None),
    "kary-2-3": (lambda: gen_fabric.kary(k=2, n=3), None, None),
    "ft3-r4": (lambda: gen_fabric.ft3(radix=4, pods=2), None, None),
    "torus-3x3": (lambda: gen_fabric.torus([3, 3], wrap=True, hosts=1), None, None),
    "mesh-2x3x2": (lambda: gen_fabric.torus([2, 3, 2], wrap=False, hosts=1), None, None),
}

BRINGUP_FABRICS = list(FABRICS)
ONCE_FABRICS = ["ex-net", "ex-2sw2path4hca2port", "ft2-4x4", "ft2-parallel", "kary-2-3", "torus-3x3"]
FAULT_FABRICS = ["ft2-4x4", "ft2-parallel", "torus-3x3"]


@pytest.fixture(scope="session")
def fabric_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("fabrics")
    return d


def make_fabric(name: str, fabric_dir: Path) -> Fabric:
    src, sm_node, judge = FABRICS[name]
    if callable(src):
        path = fabric_dir / f"{name}.net"
        if not path.exists():
            path.write_text(src().render())
    else:
        if not src.exists():
            pytest.skip(f"{src} not installed")
        path = src
    return Fabric(name, path, sm_node, judge)


@pytest.fixture(scope="module")
def fabric(request, fabric_dir) -> Fabric:
    return make_fabric(request.param, fabric_dir)


def _sm_params():
    only = os.environ.get("IBSIM_SM")
    return [s for s in ("opensm", "ibsm") if not only or s == only]


@pytest.fixture(scope="module", params=_sm_params())
def sm(request):
    impl = OpenSM() if request.param == "opensm" else Ibsm()
    reason = impl.available()
    if reason:
        if request.param == "ibsm" and os.environ.get("IBSM_REQUIRE") == "1":
            pytest.fail(f"IBSM_REQUIRE=1 but {reason}")
        pytest.skip(reason)
    return impl


@pytest.fixture
def workdir(request, tmp_path_factory):
    """A fresh directory per test; removed on success unless IBSIM_KEEP=1."""
    d = tmp_path_factory.mktemp(request.node.name[:60].replace("/", "_"))
    yield d
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.passed and os.environ.get("IBSIM_KEEP") != "1":
        shutil.rmtree(d, ignore_errors=True)


# Fixtures every worker may build again for itself: they only name a fabric or an SM.
CHEAP_SHARED_FIXTURES = {"fabric", "sm", "fabric_dir"}


def xdist_group(item) -> str | None:
    """The work unit of a test under pytest-xdist's --dist loadgroup, or None to let it
    run on any worker by itself.

    Tests sharing an expensive module-scoped fixture (a running simulator and SM, such
    as test_bringup's `running` or test_sa's `pair`) stay together, one unit per module
    and per value of the module-scoped parameters (the fabric, the SM), so each fixture
    is still brought up once.  Every other test (its own simulator through `sims`) is a
    unit alone, which lets the slow parametrized cases of one module run side by side."""
    info = getattr(item, "_fixtureinfo", None)
    callspec = getattr(item, "callspec", None)
    if info is None:
        return item.module.__name__ if hasattr(item, "module") else None
    shared = False
    for name in item.fixturenames:
        defs = info.name2fixturedefs.get(name)
        if not defs or defs[-1].scope == "function" or name in CHEAP_SHARED_FIXTURES:
            continue
        src = getattr(defs[-1].func, "__module__", "")
        if src == "conftest" or src == item.module.__name__:
            shared = True
    if not shared:
        return None
    ids = []
    if callspec is not None:
        for name, value in sorted(callspec.params.items()):
            defs = info.name2fixturedefs.get(name)
            if defs and defs[-1].scope != "function":
                # the same text in every worker (xdist compares their collections)
                shown = value if isinstance(value, (str, int)) else f"#{callspec.indices[name]}"
                ids.append(f"{name}={shown}")
    return "-".join([item.module.__name__, *ids]).replace("@", "_").replace("]", "_")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # Runs before xdist's own hook, which turns the marks into work units.
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


class SimFactory:
    """Starts simulators and guarantees they are stopped."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.sims: list[Simulator] = []

    def __call__(self, fabric: Fabric, tag: str = "sim") -> Simulator:
        sim = Simulator(fabric.path, self.workdir / f"{tag}{len(self.sims)}", tag)
        self.sims.append(sim)
        return sim.start()

    def stop_all(self):
        for s in self.sims:
            s.stop()


@pytest.fixture
def sims(workdir):
    f = SimFactory(workdir)
    yield f
    f.stop_all()


@pytest.fixture
def sm_procs():
    """Collects SMProcess objects; kills any still running at teardown."""
    procs = []
    yield procs
    for p in procs:
        p.kill()
