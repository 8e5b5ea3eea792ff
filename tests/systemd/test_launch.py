"""ibsm-launch instance selection against a fake /etc and a fake port list."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

LAUNCH = os.environ["IBSM_LAUNCH"]

G1, G2, G3 = "0x0002c903000e0b72", "0x0002c903000e0b73", "0x0008f10403960001"
ETH = "0x0202c9fffe123456"


def gid(guid: str) -> str:
    h = guid[2:]
    return "fe80:0000:0000:0000:" + ":".join(h[i:i + 4] for i in range(0, 16, 4))


@pytest.fixture
def host(tmp_path):
    """A fake root: etc/ (empty) and sys/ with mlx5_0 ports 1-2 (InfiniBand),
    mlx5_1 port 1 (Ethernet, RoCE: never an SM port) and qib0 port 1 (InfiniBand)."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    sysfs = tmp_path / "sys"
    for dev, port, guid, ll in [("mlx5_0", 1, G1, "InfiniBand"), ("mlx5_0", 2, G2, "InfiniBand"),
                                ("mlx5_1", 1, ETH, "Ethernet"), ("qib0", 1, G3, "InfiniBand")]:
        p = sysfs / dev / "ports" / str(port)
        (p / "gids").mkdir(parents=True)
        (p / "gids" / "0").write_text(gid(guid) + "\n")
        (p / "link_layer").write_text(ll + "\n")
    return Host(root, sysfs, tmp_path)


class Host:
    def __init__(self, root: Path, sysfs: Path, tmp: Path):
        self.root, self.sysfs, self.tmp = root, sysfs, tmp

    def write(self, rel: str, text: str) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def run(self, *args: str, env: dict | None = None, check: bool = True):
        e = dict(os.environ)
        e.update({"IBSM_BIN": "/usr/sbin/ibsm", "IBSM_LOG_DIR": "/var/log",
                  "IBSM_CACHE_BASE": "/var/cache/ibsm", "IBSM_DUMP_BASE": "/var/log/ibsm"})
        e.update(env or {})
        cp = subprocess.run(["/bin/sh", LAUNCH, "--root", str(self.root), "--sysfs", str(self.sysfs),
                             *args], capture_output=True, text=True, env=e, timeout=20)
        if check:
            assert cp.returncode == 0, f"ibsm-launch {' '.join(args)} exited {cp.returncode}:\n{cp.stderr}"
        return cp

    def list(self) -> list[str]:
        return self.run("list").stdout.split()

    def argv(self, inst: str) -> list[str]:
        return self.run("argv", inst).stdout.splitlines()


def test_default_is_all_ib_ports(host):
    assert host.list() == [G1, G2, G3]


def test_ports_all_none_and_list(host):
    host.write("etc/default/ibsm", "PORTS=ALL\n")
    assert host.list() == [G1, G2, G3]
    host.write("etc/default/ibsm", "# off\nPORTS=NONE   # comment\n")
    cp = host.run("list")
    assert cp.stdout == "" and "NONE" in cp.stderr
    host.write("etc/default/ibsm", 'export PORTS="0x2C903000E0B72 bogus 0x0008f10403960001"\n')
    cp = host.run("list")
    assert cp.stdout.split() == [G1, G3] and "'bogus' is not a GUID" in cp.stderr


def test_opensm_default_file_used_when_ibsm_file_silent(host):
    host.write("etc/default/opensm", f"PORTS='{G2}'\n")
    host.write("etc/default/ibsm", "#PORTS=ALL\nOPTIONS=\"--sweep 30\"\n")
    assert host.list() == [G2]
    host.write("etc/default/ibsm", f"PORTS={G3}\n")
    assert host.list() == [G3]
    host.write("etc/default/opensm", "PORTS=NONE\n")
    host.write("etc/default/ibsm", "")
    assert host.list() == []


def test_no_ports_found(host, tmp_path):
    empty = tmp_path / "empty-sys"
    empty.mkdir()
    cp = subprocess.run(["/bin/sh", LAUNCH, "--root", str(host.root), "--sysfs", str(empty), "list"],
                        capture_output=True, text=True, timeout=20)
    assert cp.returncode == 0 and cp.stdout == "" and "No InfiniBand ports found" in cp.stderr


def test_ibstat_fallback_without_sysfs(host, tmp_path):
    ibstat = tmp_path / "ibstat"
    ibstat.write_text(f"#!/bin/sh\n[ \"$1\" = -p ] || exit 9\necho {G2}\necho 0x8F10403960001\n")
    ibstat.chmod(0o755)
    cp = subprocess.run(["/bin/sh", LAUNCH, "--root", str(host.root), "--sysfs", str(tmp_path / "none"),
                         "list"], capture_output=True, text=True, timeout=20,
                        env=dict(os.environ, IBSM_IBSTAT=str(ibstat)))
    assert cp.stdout.split() == [G2, G3], cp.stderr


def test_debian_instance_command(host):
    host.write("etc/default/ibsm", 'OPTIONS="--sweep 30 -v"\n')
    assert host.argv(G1) == [f"OSM_CACHE_DIR=/var/cache/ibsm/{G1}", "/usr/sbin/ibsm", "--guid", G1,
                             "--log_file", f"/var/log/ibsm.{G1}.log",
                             "--dump_files_dir", f"/var/log/ibsm/{G1}", "--sweep", "30", "-v"]
    # A GUID written differently is normalised, so files are named the same way.
    assert host.argv("0x2C903000E0B72")[0] == f"OSM_CACHE_DIR=/var/cache/ibsm/{G1}"


def test_instances_never_share_files(host):
    outputs = {}
    for inst in host.list():
        a = host.argv(inst)
        for key in ("--log_file", "--dump_files_dir"):
            outputs.setdefault(key, set()).add(a[a.index(key) + 1])
        outputs.setdefault("cache", set()).add(a[0])
    assert all(len(v) == 3 for v in outputs.values()), outputs


def test_redhat_guids_priority_prefix(host):
    guids = [f"0x00000000000000{i:02x}" for i in range(1, 12)]
    host.write("etc/sysconfig/opensm", f'# Red Hat\nGUIDS="{" ".join(guids)}"\nPRIORITY=5\n')
    host.write("etc/rdma/opensm.conf.1", f"guid {G1}\n")  # GUIDS wins over numbered files
    host.write("etc/default/ibsm", "PORTS=ALL\n")  # and over PORTS=ALL
    assert host.list() == guids
    a = host.argv(guids[0])
    assert a[a.index("--subnet_prefix") + 1] == "0xfe80000000000000"
    assert a[a.index("-p") + 1] == "5" and a[a.index("--guid") + 1] == guids[0]
    assert host.argv(guids[1])[host.argv(guids[1]).index("--subnet_prefix") + 1] == "0xfe80000000000001"
    # Red Hat's opensm-launch formats NN with %02d: the 11th fabric is ...0010, not ...000a.
    a = host.argv(guids[10])
    assert a[a.index("--subnet_prefix") + 1] == "0xfe80000000000010"
    # A port outside GUIDS started by hand gets no prefix but keeps -p.
    a = host.argv(G3)
    assert "--subnet_prefix" not in a and a[a.index("-p") + 1] == "5"
    # /etc/sysconfig/ibsm overrides opensm's file variable by variable.
    host.write("etc/sysconfig/ibsm", f"GUIDS={G2}\n")
    assert host.list() == [G2]
    a = host.argv(G2)
    assert a[a.index("-p") + 1] == "5" and "0xfe80000000000000" in a
    # PORTS=NONE always wins.
    host.write("etc/default/ibsm", "PORTS=NONE\n")
    assert host.list() == []


BACKUPS = ["opensm.conf.608318.2026-05-13@16:37:05~", "opensm.conf.1~", "opensm.conf.1.rpmsave",
           "opensm.conf.2.rpmnew", "opensm.conf.3.dpkg-old", "opensm.conf.", "opensm.conf.orig",
           "opensm.conf.4.bak", "#opensm.conf.5#", ".opensm.conf.6.swp"]


@pytest.mark.parametrize("etcdir", ["rdma", "opensm"])
def test_numbered_files_ignore_backups(host, etcdir):
    host.write(f"etc/{etcdir}/opensm.conf", "sm_priority 1\n")
    host.write(f"etc/{etcdir}/opensm.conf.10", f"guid {G3}\n")
    host.write(f"etc/{etcdir}/opensm.conf.2", f"guid {G2}\nlog_file /var/log/opensm-two.log\n"
                                              "dump_files_dir /srv/dumps\n")
    host.write(f"etc/{etcdir}/opensm.conf.1", f"guid {G1}\nlog_file (null)\n")
    for b in BACKUPS:
        host.write(f"etc/{etcdir}/{b}", "guid 0x1\n")
    (host.root / "etc" / etcdir / "opensm.conf.7").mkdir()  # a directory is not a file
    assert host.list() == ["conf.1", "conf.2", "conf.10"]
    conf1 = str(host.root / f"etc/{etcdir}/opensm.conf.1")
    assert host.argv("conf.1") == ["OSM_CACHE_DIR=/var/cache/ibsm/conf.1", "/usr/sbin/ibsm", "-F", conf1,
                                   "--log_file", "/var/log/ibsm.conf.1.log",
                                   "--dump_files_dir", "/var/log/ibsm/conf.1",
                                   "--ctl-socket", "/run/ibsm/conf.1.sock"]
    # The file's own log and dump locations are kept.
    assert host.argv("conf.2")[1:] == ["/usr/sbin/ibsm", "-F", str(host.root / f"etc/{etcdir}/opensm.conf.2"),
                                       "--ctl-socket", "/run/ibsm/conf.2.sock"]
    assert host.run("argv", "conf.3", check=False).returncode == 2
    assert host.run("argv", "conf.1~", check=False).returncode == 2


def test_ibsm_numbered_files_preferred(host):
    host.write("etc/rdma/opensm.conf.1", f"guid {G1}\n")
    host.write("etc/ibsm/ibsm.conf.5", f"guid {G2}\n")
    host.write("etc/ibsm/ibsm.conf.1~", f"guid {G2}\n")
    host.write("etc/ibsm/ibsm.conf.1.rpmsave", f"guid {G2}\n")
    assert host.list() == ["conf.5"]
    assert host.argv("conf.5")[3] == str(host.root / "etc/ibsm/ibsm.conf.5")


def test_redhat_single_default_instance(host):
    host.write("etc/sysconfig/opensm", "# GUIDS=\nPRIORITY=\n")
    assert host.list() == ["default"]
    assert host.argv("default") == ["/usr/sbin/ibsm", "--log_file", "/var/log/ibsm.log"]
    host.write("etc/rdma/opensm.conf", "sm_priority 3\n")
    assert host.argv("default") == ["/usr/sbin/ibsm", "-F", str(host.root / "etc/rdma/opensm.conf"),
                                    "--log_file", "/var/log/ibsm.log"]
    host.write("etc/rdma/opensm.conf", "log_file /var/log/opensm.log\n")
    assert host.argv("default") == ["/usr/sbin/ibsm", "-F", str(host.root / "etc/rdma/opensm.conf")]
    # An explicit PORTS in /etc/default still selects per-port instances.
    host.write("etc/default/ibsm", "PORTS=ALL\n")
    assert host.list() == [G1, G2, G3]


def test_redhat_options_from_the_rpms_sysconfig_file(host):
    # The RPM ships /etc/sysconfig/ibsm, not /etc/default/ibsm: OPTIONS is read there too.
    host.write("etc/sysconfig/ibsm", 'OPTIONS="--sweep 30 -v"\n')
    assert host.argv("default")[-3:] == ["--sweep", "30", "-v"]
    # /etc/default/ibsm's OPTIONS, where set, wins.
    host.write("etc/default/ibsm", 'OPTIONS="-s 5"\n')
    assert host.argv("default")[-2:] == ["-s", "5"]


def test_bad_usage(host):
    assert host.run("argv", "eth0", check=False).returncode == 2
    assert host.run("argv", "0xnothex", check=False).returncode == 2
    assert host.run("frobnicate", check=False).returncode == 2
    assert host.run(check=False).returncode == 2


def test_start_uses_systemctl_and_stops_dropped_instances(host, tmp_path):
    calls = tmp_path / "calls"
    fake = tmp_path / "systemctl"
    fake.write_text(f"""#!/bin/sh
echo "$*" >> {calls}
if [ "$1" = list-units ]; then
    echo "ibsm@{G1}.service loaded active running ibsm on {G1}"
    echo "ibsm@0x00000000000000aa.service loaded active running ibsm on old port"
fi
""")
    fake.chmod(0o755)
    host.write("etc/default/ibsm", f"PORTS='{G1} {G2}'\n")
    host.run("start", env={"IBSM_SYSTEMCTL": str(fake)})
    lines = calls.read_text().splitlines()
    assert f"start --no-block ibsm@{G1}.service" in lines
    assert f"start --no-block ibsm@{G2}.service" in lines
    assert "stop --no-block ibsm@0x00000000000000aa.service" in lines
    assert not any(l.startswith("stop") and G1 in l for l in lines)


def test_exec_sets_cache_dir_and_creates_directories(host, tmp_path):
    fake = tmp_path / "ibsm"
    out = tmp_path / "out"
    fake.write_text(f'#!/bin/sh\n{{ echo "cache=$OSM_CACHE_DIR"; for a; do echo "$a"; done; }} > {out}\n')
    fake.chmod(0o755)
    env = {"IBSM_BIN": str(fake), "IBSM_LOG_DIR": str(tmp_path / "log"),
           "IBSM_CACHE_BASE": str(tmp_path / "cache"), "IBSM_DUMP_BASE": str(tmp_path / "log/ibsm")}
    host.run("exec", G2, env=env)
    got = out.read_text().splitlines()
    assert got[0] == f"cache={tmp_path}/cache/{G2}"
    assert got[1:] == ["--guid", G2, "--log_file", f"{tmp_path}/log/ibsm.{G2}.log",
                       "--dump_files_dir", f"{tmp_path}/log/ibsm/{G2}"]
    assert (tmp_path / "cache" / G2).is_dir() and (tmp_path / "log/ibsm" / G2).is_dir()
