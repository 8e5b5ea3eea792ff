#!/usr/bin/env python3
"""Runs nm_rollback_test inside a private network and mount namespace with its own
D-Bus system bus and NetworkManager, so that a real NetworkManager judges the agent's
checkpoint rollback without touching the host's. Exit 77 (meson: skipped) with the
precise reason when the machine cannot: not root, no unshare, no NetworkManager, or a
NetworkManager that does not come up in the namespace.

Usage: nm_rollback.py TEST_BINARY
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={sock}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
"""
# dns=none, rc-manager=unmanaged and hostname-mode=none: /etc/resolv.conf and the host
# name are shared with the host (only /etc/NetworkManager is private).
NM_CONF = ("[main]\nplugins=keyfile\nno-auto-default=*\ndns=none\nrc-manager=unmanaged\n"
           "hostname-mode=none\n[logging]\nlevel=WARN\n")


def skip(why: str) -> None:
    print(f"SKIP: {why}")
    sys.exit(SKIP)


def outside(test: str) -> int:
    if os.geteuid() != 0:
        skip("needs root (a network and mount namespace, and NetworkManager's D-Bus policy)")
    for tool in ("unshare", "NetworkManager", "nmcli", "dbus-daemon", "busctl", "ip"):
        if not shutil.which(tool, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin"):
            skip(f"{tool} is not installed (scripts/install-deps.sh installs network-manager)")
    probe = subprocess.run(["unshare", "--mount", "--net", "--uts", "true"], capture_output=True,
                           text=True)
    if probe.returncode != 0:
        skip(f"unshare --mount --net --uts refused: {probe.stderr.strip()} (no CAP_SYS_ADMIN?)")
    # NetworkManager and ip live in sbin, which a non-login PATH may lack.
    env = dict(os.environ, IBSM_NM_INSIDE="1",
               PATH=os.environ.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin")
    return subprocess.run(["unshare", "--mount", "--net", "--uts", "--propagation", "private",
                           sys.executable, __file__, test], env=env).returncode


def wait(cond, seconds: float, what: str, log) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.1)
    skip(f"{what} within {seconds:.0f} s in the namespace; NetworkManager said:\n{log()}")


def inside(test: str) -> int:
    work = tempfile.mkdtemp(prefix="ibsm-nm-")
    # The host's NetworkManager state stays out of sight: fresh tmpfs over each directory.
    for d in ("/etc/NetworkManager", "/run/NetworkManager", "/var/lib/NetworkManager"):
        os.makedirs(d, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "tmpfs", d], check=True)
    os.makedirs("/etc/NetworkManager/system-connections")
    with open("/etc/NetworkManager/NetworkManager.conf", "w") as f:
        f.write(NM_CONF)
    sock = os.path.join(work, "system_bus")
    with open(os.path.join(work, "bus.conf"), "w") as f:
        f.write(BUS_CONF.format(sock=sock))
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={sock}", IBSM_NM_TEST="1")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    # A device for the foreign profile (veth: the dummy driver may be missing).
    subprocess.run(["ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1"])
    bus = subprocess.Popen(["dbus-daemon", "--nofork", "--config-file",
                            os.path.join(work, "bus.conf")], env=env)
    nm_log = os.path.join(work, "nm.log")
    nm = None
    try:
        wait(lambda: os.path.exists(sock), 10, "the private D-Bus did not start",
             lambda: "(no log)")
        with open(nm_log, "w") as log:
            nm = subprocess.Popen(["NetworkManager", "--no-daemon"], env=env, stdout=log,
                                  stderr=subprocess.STDOUT)
        wait(lambda: subprocess.run(["nmcli", "-t", "general", "status"], env=env,
                                    capture_output=True).returncode == 0,
             30, "NetworkManager did not answer", lambda: open(nm_log).read()[-2000:])
        rc = subprocess.run([test], env=env).returncode
        if rc != 0:
            print("NetworkManager's log:\n" + open(nm_log).read()[-4000:])
        return rc
    finally:
        for p in (nm, bus):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(inside(sys.argv[1]) if os.environ.get("IBSM_NM_INSIDE") else outside(sys.argv[1]))
