#!/usr/bin/env python3
"""ibsm-agent end to end on ibsim.

An SM (ibsm, or Debian's opensm) programs a partitions.conf on a simulated fabric; then
`ibsm-agent show` and `plan`, run as hosts of that fabric under umad2sim, must
see exactly the P_Keys the SM gave each host and plan the matching IPoIB
children. Conditions are waited for with deadlines, never with fixed sleeps,
and ibsim is always killed.

usage: agent_e2e.py <path to ibsm-agent>
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
SKIP = 77  # meson's "skipped" exit status

# sw -- smhost (runs the SM), h1, h2
NET = """Switch 8 "sw"
[1] "smhost"[1]
[2] "h1"[1]
[3] "h2"[1]

Hca 1 "smhost"
[1] "sw"[1]

Hca 1 "h1"
[1] "sw"[2]

Hca 1 "h2"
[1] "sw"[3]
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class Fabric:
    def __init__(self, agent, tmp):
        self.agent = agent
        self.tmp = tmp
        self.sock = "ibsm-agent-e2e-%d" % os.getpid()
        self.ibsim = None

    def env(self, host):
        e = dict(os.environ)
        e.update(IBSIM_SOCKNAME=self.sock, SIM_HOST=host, LD_PRELOAD=UMAD2SIM)
        return e

    def start(self):
        with open(os.path.join(self.tmp, "net"), "w") as f:
            f.write(NET)
        log = open(os.path.join(self.tmp, "ibsim.log"), "w")
        env = dict(os.environ, IBSIM_SOCKNAME=self.sock)
        # ibsim reads console commands on stdin: keep a pipe open so it never sees EOF.
        self.ibsim = subprocess.Popen(["ibsim", "-s", "net"], cwd=self.tmp, env=env,
                                      stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT)

    def stop(self):
        if self.ibsim and self.ibsim.poll() is None:
            self.ibsim.terminate()
            try:
                self.ibsim.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.ibsim.kill()
                self.ibsim.wait()

    def agent_run(self, host, args):
        # umad2sim creates ./sys-<pid> in the cwd and removes it at exit.
        return subprocess.run([self.agent] + args, cwd=self.tmp, env=self.env(host),
                              capture_output=True, text=True, timeout=60)

    def show(self, host):
        r = self.agent_run(host, ["show", "--format", "json"])
        if r.returncode != 0:
            return None
        return json.loads(r.stdout)

    def port(self, host):
        s = self.show(host)
        if not s or len(s["devices"]) != 1:
            return None
        return s["devices"][0]["ports"][0]


def wait_for(what, deadline_s, probe):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        v = probe()
        if v:
            return v
        time.sleep(0.2)  # poll interval; the deadline is what bounds the wait
    fail("timed out after %ds waiting for %s" % (deadline_s, what))


def pkeys(port):
    return [(p["pkey"], p["membership"]) for p in port["pkeys"]]


def host_tree(root, guid, pkeys='pkeys = "auto"'):
    """A --root tree for a host: its IPoIB parent ib0 (the GUID in the last 8 address bytes)."""
    g = guid[2:]
    addr = "80:00:00:48:fe:80:00:00:00:00:00:00:" + ":".join(g[i:i + 2] for i in range(0, 16, 2))
    files = {
        "sys/class/net/ib0/type": "32\n", "sys/class/net/ib0/address": addr + "\n",
        "sys/class/net/ib0/mtu": "2044\n", "sys/class/net/ib0/mode": "datagram\n",
        "sys/class/net/ib0/pkey": "0xffff\n", "sys/class/net/ib0/operstate": "up\n",
        "sys/class/net/ib0/ifalias": "\n", "sys/module/ib_ipoib/refcnt": "0\n",
        "node.toml": '[[ipoib]]\nport = { guid = "%s" }\n%s\n' % (guid, pkeys),
    }
    for path, content in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(content)


def plan_children(fabric, host, root):
    r = fabric.agent_run(host, ["plan", "--root", root, "--port-source", "umad", "--backend", "direct",
                                "--format", "json", "-c", os.path.join(root, "node.toml")])
    if r.returncode != 2:
        fail("%s: plan exit %d (want 2: changes)\n%s%s" % (host, r.returncode, r.stdout, r.stderr))
    plan = json.loads(r.stdout)
    if plan["errors"]:
        fail("%s: plan errors %s" % (host, plan["errors"]))
    return sorted(a["change"] for a in plan["actions"] if a["kind"] == "create-child")


def tree_snapshot(root):
    """Every file under `root` with its content, and every directory."""
    out = {}
    for d, dirs, files in os.walk(root):
        for name in dirs:
            out[os.path.join(d, name)] = "dir"
        for name in files:
            with open(os.path.join(d, name), "rb") as f:
                out[os.path.join(d, name)] = f.read()
    return out


def hostile_node_files(fabric, tmp, guid):
    """Issue 38: the real binary refuses a node file carrying shell in an address or a name
    leaving the directory, naming file and line, and the host tree is left as it was (the
    ifupdown backend, whose stanza lines /bin/sh runs as root)."""
    cases = [
        ('addresses = ["10.0.0.1;reboot;#/24"]', "IBSM-6006", "node.toml:3:"),
        ('name = "ib0/../../../etc"', "IBSM-6005", "node.toml:3:"),
        ('[[ipoib.child]]\npkey = 0x0002\nname = "x\\n    up reboot"', "IBSM-6005", "node.toml:5:"),
    ]
    for n, (line, id_, where) in enumerate(cases):
        root = os.path.join(tmp, "root-hostile-%d" % n)
        host_tree(root, guid, line)
        os.makedirs(os.path.join(root, "etc/network/interfaces.d"))
        with open(os.path.join(root, "etc/network/interfaces"), "w") as f:
            f.write("source /etc/network/interfaces.d/*\n")
        before = tree_snapshot(root)
        r = fabric.agent_run("h1", ["apply", "--root", root, "--port-source", "umad", "--backend",
                                    "ifupdown", "-c", os.path.join(root, "node.toml")])
        if r.returncode != 1 or id_ not in r.stderr or where not in r.stderr:
            fail("hostile %r: exit %d (want 1 with %s at %s)\n%s%s"
                 % (line, r.returncode, id_, where, r.stdout, r.stderr))
        if tree_snapshot(root) != before:
            fail("hostile %r: the tree changed" % line)
        print("refused: %s" % r.stderr.strip().splitlines()[-1])


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 1
    agent = os.path.abspath(sys.argv[1])
    # The SM that programs the partitions: ibsm when given, else Debian's opensm.
    sm = os.path.abspath(sys.argv[2]) if len(sys.argv) == 3 else "opensm"
    for tool in ("ibsim", sm):
        if not shutil.which(tool):
            print("SKIP: %s not installed (apt install ibsim-utils opensm)" % tool)
            return SKIP
    if not os.path.exists(UMAD2SIM):
        print("SKIP: %s missing (apt install libumad2sim0)" % UMAD2SIM)
        return SKIP

    # meson stops a test that overruns with SIGTERM: unwind through `finally` so ibsim dies too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    tmp = tempfile.mkdtemp(prefix="ibsm-agent-e2e-")
    fabric = Fabric(agent, tmp)
    try:
        fabric.start()
        # The simulator is up when a host can read its port through it.
        h1 = wait_for("ibsim to answer h1", 30, lambda: fabric.port("h1"))
        h2 = wait_for("ibsim to answer h2", 30, lambda: fabric.port("h2"))
        if h1["state"] == "ACTIVE":
            fail("h1 ACTIVE before any SM ran")
        g1, g2 = h1["port_guid"], h2["port_guid"]

        # Before any SM: a child applied now is pending-sm, not failed (the port is not ACTIVE).
        early = os.path.join(tmp, "root-early")
        host_tree(early, g1, 'pkeys = [0x0002]')
        early_args = ["--root", early, "--port-source", "umad", "--backend", "direct", "-c",
                      os.path.join(early, "node.toml")]
        r = fabric.agent_run("h1", ["apply"] + early_args)
        if r.returncode != 0:
            fail("h1 early apply exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        r = fabric.agent_run("h1", ["verify", "--format", "json"] + early_args)
        states = {v["resource"]: v["state"] for v in json.loads(r.stdout)["resources"]}
        if r.returncode != 2 or states != {"ipoib ib0": "pending-sm", "ipoib ib0.8002": "pending-sm"}:
            fail("h1 verify before the SM: exit %d, %s (want 2, pending-sm)" % (r.returncode, states))
        print("verify before SM: h1 %s" % states)

        # Default is full everywhere; storage only for h1; compute: h1 limited, h2 full; other: h2.
        conf = os.path.join(tmp, "partitions.conf")
        with open(conf, "w") as f:
            f.write("Default=0x7fff, ipoib : ALL=full ;\n"
                    "storage=0x0002, ipoib : %s=full ;\n"
                    "compute=0x0003, ipoib : %s=limited, %s=full ;\n"
                    "other=0x0004, ipoib : %s=full ;\n" % (g1, g1, g2, g2))
        osm = os.path.join(tmp, "osm")
        os.makedirs(osm)
        env = fabric.env("smhost")
        env["OSM_CACHE_DIR"] = osm
        # -o: one sweep, then exit.
        r = subprocess.run([sm, "-o", "-d", "2", "-f", os.path.join(osm, "osm.log"), "-P", conf],
                           cwd=osm, env=env, capture_output=True, text=True, timeout=120)
        with open(os.path.join(osm, "osm.log")) as f:
            log = f.read()
        if r.returncode != 0 or "SUBNET UP" not in log:
            fail("%s did not bring the subnet up (exit %d)\n%s" % (sm, r.returncode, log[-2000:]))

        h1 = wait_for("h1 ACTIVE", 30, lambda: (lambda p: p if p and p["state"] == "ACTIVE" else None)(
            fabric.port("h1")))
        h2 = wait_for("h2 ACTIVE", 30, lambda: (lambda p: p if p and p["state"] == "ACTIVE" else None)(
            fabric.port("h2")))
        want1 = [("0xffff", "full"), ("0x8002", "full"), ("0x0003", "limited")]
        want2 = [("0xffff", "full"), ("0x8003", "full"), ("0x8004", "full")]
        if pkeys(h1) != want1:
            fail("h1 P_Keys %s, want %s" % (pkeys(h1), want1))
        if pkeys(h2) != want2:
            fail("h2 P_Keys %s, want %s" % (pkeys(h2), want2))
        if h1["sm_lid"] == 0 or h1["lid"] == 0:
            fail("h1 has no LID/SM LID: %s" % h1)
        print("show: h1 %s, h2 %s" % (pkeys(h1), pkeys(h2)))

        # plan: children for the full-member P_Keys only (h1's limited 0x0003 gets none).
        root1, root2 = os.path.join(tmp, "root-h1"), os.path.join(tmp, "root-h2")
        host_tree(root1, g1)
        host_tree(root2, g2)
        c1, c2 = plan_children(fabric, "h1", root1), plan_children(fabric, "h2", root2)
        if c1 != ["create ib0.8002 on ib0 (P_Key 0x8002, datagram)"]:
            fail("h1 plans %s" % c1)
        if c2 != ["create ib0.8003 on ib0 (P_Key 0x8003, datagram)",
                  "create ib0.8004 on ib0 (P_Key 0x8004, datagram)"]:
            fail("h2 plans %s" % c2)
        print("plan: h1 %s; h2 %s" % (c1, c2))

        # apply on the tree, then verify against the SM's table: every child ok.
        base = ["--root", root1, "--port-source", "umad", "--backend", "direct", "-c",
                os.path.join(root1, "node.toml")]
        r = fabric.agent_run("h1", ["apply"] + base)
        if r.returncode != 0:
            fail("h1 apply exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        r = fabric.agent_run("h1", ["verify", "--format", "json"] + base)
        states = {v["resource"]: v["state"] for v in json.loads(r.stdout)["resources"]}
        if r.returncode != 0 or states != {"ipoib ib0": "ok", "ipoib ib0.8002": "ok"}:
            fail("h1 verify exit %d: %s" % (r.returncode, states))
        print("verify: h1 %s" % states)

        # The early tree, created before the SM ran, is ok now that the SM programmed 0x8002.
        r = fabric.agent_run("h1", ["verify", "--format", "json"] + early_args)
        states = {v["resource"]: v["state"] for v in json.loads(r.stdout)["resources"]}
        if r.returncode != 0 or set(states.values()) != {"ok"}:
            fail("h1 early tree after the SM: exit %d, %s" % (r.returncode, states))
        print("verify after SM (early tree): h1 %s" % states)

        # compute (0x0003) gave h1 only limited membership: verify must say failed, not ok.
        limited = os.path.join(tmp, "root-limited")
        host_tree(limited, g1, 'pkeys = [0x0003]')
        largs = ["--root", limited, "--port-source", "umad", "--backend", "direct", "-c",
                 os.path.join(limited, "node.toml")]
        r = fabric.agent_run("h1", ["apply"] + largs)
        if r.returncode != 0:
            fail("h1 limited apply exit %d\n%s%s" % (r.returncode, r.stdout, r.stderr))
        r = fabric.agent_run("h1", ["verify", "--format", "json"] + largs)
        verdicts = {v["resource"]: v for v in json.loads(r.stdout)["resources"]}
        child = verdicts.get("ipoib ib0.8003", {})
        if r.returncode != 3 or child.get("state") != "failed" or "limited" not in child.get("reason", ""):
            fail("h1 limited member: exit %d, %s (want 3, failed)" % (r.returncode, verdicts))
        print("verify limited: h1 ib0.8003 %s (%s)" % (child["state"], child["reason"]))
        hostile_node_files(fabric, tmp, g1)
        return 0
    finally:
        fabric.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
