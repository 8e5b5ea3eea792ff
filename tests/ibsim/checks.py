"""What independent tools must see once an SM reports SUBNET UP.

Every check returns a list of problems (empty = pass); each problem names the
node and port.  Tests add the fabric and the SM to the assertion message.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ibsimlib import (HarnessError, NetModel, SMProcess, Simulator, Topology, parse_iblinkinfo, parse_ibroute,
                      parse_ibtracert, parse_sminfo, run_tool)

MAX_HOPS = 64


def discover(sim: Simulator, judge: str) -> Topology:
    return Topology(run_tool(sim, judge, ["ibnetdiscover"]).stdout)


def expected_nodes(model: NetModel, sm_node: str) -> set[str]:
    """Nodes the SM can reach (everything, unless links were removed)."""
    return model.reachable_from(sm_node)


def check_discovery(topo: Topology, model: NetModel, sm_node: str) -> list[str]:
    """Every node and connected port present; every end port has a unique non-zero LID."""
    problems = []
    want = expected_nodes(model, sm_node)
    seen = set(topo.by_desc)
    for name in sorted(want - seen):
        problems.append(f"node {name} not discovered by ibnetdiscover")
    for name in sorted(seen - want):
        problems.append(f"ibnetdiscover shows unexpected node {name}")
    if len(topo.nodes) != len(topo.by_desc):
        problems.append("ibnetdiscover shows duplicate node descriptions")
    for name in sorted(want & seen):
        spec, node = model.nodes[name], topo.by_desc[name]
        for p, (rn, rp) in sorted(spec.peers.items()):
            tp = node.ports.get(p)
            if tp is None:
                problems.append(f"{name}[{p}]: link to {rn}[{rp}] missing in ibnetdiscover")
            elif (tp.peer_desc, tp.peer_port) != (rn, rp):
                problems.append(f"{name}[{p}]: ibnetdiscover shows peer {tp.peer_desc}[{tp.peer_port}],"
                                f" net file says {rn}[{rp}]")
        for p in sorted(set(node.ports) - set(spec.peers)):
            problems.append(f"{name}[{p}]: ibnetdiscover shows a link the net file does not have")
    owners: dict[int, str] = {}
    for node, port, lid in topo.end_ports():
        where = f"{node.desc}[{port}]"
        if lid == 0:
            problems.append(f"{where}: LID 0 ({'switch port 0' if node.is_switch else 'CA port'})")
            continue
        if lid >= 0xC000:
            problems.append(f"{where}: LID {lid:#x} is not unicast")
        if lid in owners:
            problems.append(f"{where}: LID {lid} also assigned to {owners[lid]}")
        owners[lid] = where
    return problems


def check_active(sim: Simulator, judge: str, model: NetModel, sm_node: str) -> list[str]:
    """Every connected port (both ends of every link) is Active/LinkUp per iblinkinfo."""
    states = parse_iblinkinfo(run_tool(sim, judge, ["iblinkinfo"]).stdout)
    problems = []
    want = expected_nodes(model, sm_node)
    for name in sorted(want):
        for p in sorted(model.nodes[name].peers):
            st = states.get((name, p))
            if st is None:
                problems.append(f"{name}[{p}]: not shown by iblinkinfo")
            elif st[0] != "Active":
                problems.append(f"{name}[{p}]: port state {st[0]}/{st[1]}, expected Active")
    return problems


def check_sminfo(sim: Simulator, judge: str, topo: Topology, sm_node: str) -> list[str]:
    """sminfo (asked from the judge) names a MASTER whose GUID is the SM port's."""
    info = parse_sminfo(run_tool(sim, judge, ["sminfo"]).stdout)
    problems = []
    if info["state_name"] != "SMINFO_MASTER":
        problems.append(f"sminfo: state {info['state']} {info['state_name']}, expected SMINFO_MASTER")
    owner = topo.lid_owner().get(info["lid"])
    if owner is None:
        problems.append(f"sminfo: SM LID {info['lid']} belongs to no port in ibnetdiscover")
        return problems
    node, port = owner
    if node.desc != sm_node:
        problems.append(f"sminfo: SM LID {info['lid']} is {node.desc}[{port}], SM runs on {sm_node}")
    guid = topo.port_guid(node, port)
    if info["guid"] != guid:
        problems.append(f"sminfo: SM GUID {info['guid']:#x} != GUID {guid:#x} of {node.desc}[{port}]"
                        f" (LID {info['lid']})")
    return problems


def read_lfts(sim: Simulator, judge: str, topo: Topology) -> dict[int, dict[int, int]]:
    return {sw.guid: parse_ibroute(run_tool(sim, judge, ["ibroute", "-n", str(sw.lid)]).stdout)
            for sw in topo.nodes.values() if sw.is_switch}


def check_lfts(topo: Topology, lfts: dict[int, dict[int, int]]) -> list[str]:
    """Every switch has a valid port for every assigned LID, and following the
    tables from every CA port reaches every LID without loops."""
    problems = []
    owners = topo.lid_owner()
    for sw in topo.nodes.values():
        if not sw.is_switch:
            continue
        table = lfts[sw.guid]
        for lid, (node, port) in sorted(owners.items()):
            out = table.get(lid)
            where = f"switch {sw.desc} (LID {sw.lid}) entry for LID {lid} ({node.desc}[{port}])"
            if out is None:
                problems.append(f"{where}: missing")
            elif node is sw:
                if out != 0:
                    problems.append(f"{where}: port {out}, expected 0 (own LID)")
            elif out == 0 or out not in sw.ports:
                problems.append(f"{where}: port {out} is not a connected port")
    if problems:
        return problems
    for src, sport, slid in topo.end_ports():
        if src.is_switch:
            continue
        for dlid, (dst, dport) in sorted(owners.items()):
            if dlid == slid:
                continue
            err = _walk(topo, lfts, src, sport, dlid, dst, dport)
            if err:
                problems.append(f"route {src.desc}[{sport}] (LID {slid}) -> LID {dlid} "
                                f"({dst.desc}[{dport}]): {err}")
                if len(problems) > 20:
                    return problems + ["... (more routes broken)"]
    return problems


def _walk(topo, lfts, src, sport, dlid, dst, dport) -> str | None:
    tp = src.ports[sport]
    node, inport = topo.nodes.get(tp.peer_guid), tp.peer_port
    path = []
    for _ in range(MAX_HOPS):
        if node is None:
            return "leads to an unknown node"
        path.append(node.desc)
        if not node.is_switch:
            if node is dst and inport == dport:
                return None
            return f"delivered to {node.desc}[{inport}] via {'->'.join(path)}"
        out = lfts[node.guid].get(dlid)
        if out is None:
            return f"no LFT entry at {node.desc}"
        if out == 0:
            return None if node is dst else f"switch {node.desc} consumes it (port 0)"
        nxt = node.ports.get(out)
        if nxt is None:
            return f"{node.desc} forwards to unconnected port {out}"
        node, inport = topo.nodes.get(nxt.peer_guid), nxt.peer_port
    return f"loop: {'->'.join(path[:12])}..."


def _sample(items: list, n: int) -> list:
    if len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


def check_tracert(sim: Simulator, judge: str, topo: Topology, sources: int = 3,
                  dests: int = 16) -> list[str]:
    """ibtracert from several CA ports (first, middle, last by LID) reaches every CA
    LID (up to `dests` of them, evenly sampled, on bigger fabrics; the LFT walk in
    check_lfts covers all pairs; this is the independent tool's view)."""
    ca_ports = sorted(((n, p, lid) for n, p, lid in topo.end_ports() if not n.is_switch),
                      key=lambda t: t[2])
    problems = []
    for src, sport, slid in _sample(ca_ports, sources):
        for dst, dport, dlid in _sample(ca_ports, dests):
            if dlid == slid:
                continue
            what = f"ibtracert {slid} {dlid} ({src.desc}[{sport}] -> {dst.desc}[{dport}])"
            cp = run_tool(sim, judge, ["ibtracert", str(slid), str(dlid)], check=False)
            if cp.returncode != 0:
                problems.append(f"{what}: exit {cp.returncode}: {cp.stderr.strip()[-300:]}")
                continue
            hop = parse_ibtracert(cp.stdout)
            if not (hop["lid_lo"] <= dlid <= hop["lid_hi"]) or hop["desc"] != dst.desc:
                problems.append(f"{what}: ended at {hop['desc']} LID {hop['lid_lo']}")
    return problems


def full_check(sim: Simulator, judge: str, model: NetModel, sm_node: str, *,
               sminfo: bool, tracert: bool = True) -> tuple[Topology, list[str]]:
    """All checks; returns the topology and the problems found."""
    topo = discover(sim, judge)
    problems = check_discovery(topo, model, sm_node)
    problems += check_active(sim, judge, model, sm_node)
    if not problems:
        problems += check_lfts(topo, read_lfts(sim, judge, topo))
    if sminfo:
        problems += check_sminfo(sim, judge, topo, sm_node)
    if tracert and not problems:
        problems += check_tracert(sim, judge, topo)
    return topo, problems


def guarded_full_check(*args, **kw) -> tuple[Topology | None, list[str]]:
    """full_check, with a failing judge reported as a problem instead of raised."""
    try:
        return full_check(*args, **kw)
    except HarnessError as e:
        return None, [f"judge failed: {e}"]


def lid_map(topo: Topology) -> dict[str, int]:
    """'desc[port]' -> LID for every end port."""
    return {f"{n.desc}[{p}]": lid for n, p, lid in topo.end_ports()}


def connected_ports(topo: Topology) -> Iterator[tuple[object, object, int]]:
    """(node, port, LID to address it by) for every cabled port other than port 0: a CA
    port answers at its own LID, a switch's external ports at port 0's."""
    for n in topo.nodes.values():
        for p in n.ports.values():
            if p.num != 0 and p.peer_guid is not None:
                yield n, p, (n.lid if n.is_switch else p.lid)


def read_sl2vl(sim: Simulator, node: str, lid: int,
               out_port: int | None = None) -> dict[int, list[int]]:
    """smpquery sl2vl: input port -> the 16 VLs of SL 0-15, for the tables of one output
    port of a switch (every input port), or of a CA port (input 0)."""
    argv = ["smpquery", "sl2vl", str(lid)] + ([str(out_port)] if out_port is not None else [])
    out = run_tool(sim, node, argv).stdout
    tables = {}
    for m in re.finditer(r"^ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|\s*$", out, re.M):
        tables[int(m.group(1))] = [int(c) for c in m.group(3).split("|")]
    if not tables:
        raise HarnessError(f"no SL2VL table in:\n{out}")
    return tables


def start_configured(sm, sim: Simulator, fabric, workdir, sm_procs: list, conf_text: str,
                     timeout: float, where: str) -> tuple[SMProcess, Topology]:
    """Runs the SM on the fabric's SM node with `conf_text` as its opensm.conf (-F) until
    SUBNET UP; returns it and the fabric as the judge node discovers it, checked."""
    conf = workdir / "opensm.conf"
    conf.write_text(conf_text)
    proc = SMProcess(sm, sim, fabric.sm_node, workdir / "sm", once=False,
                     extra=["-F", str(conf)])
    sm_procs.append(proc)
    proc.start().wait_up(timeout)
    topo = discover(sim, fabric.judge)
    problems = check_discovery(topo, fabric.model, fabric.sm_node)
    if problems:
        raise HarnessError(f"{where}\n  " + "\n  ".join(problems))
    return proc, topo
