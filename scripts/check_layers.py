#!/usr/bin/env python3
"""The layer check: every #include "..." of the product sources against one table.

Each folder has a layer number and the folders it uses. A file may include files of its
own folder, of the folders its folder uses, and of what those use in turn; anything else
fails, naming file:line, both folders and both layers. A folder only uses folders of a
lower layer, so the table itself has no cycle. tests/ and bench/ may include anything,
except tests/fake (the fake fabric), which stands in for the wire and must not see the SM.

Besides the table:
  - every top-level folder with C++ sources needs a row, and every row a folder, so a new
    folder cannot slip past the map;
  - NEVER names headers a folder may not include although its layer would allow them
    (an SM component in a sub-folder of sm/ never includes the whole SubnetManager);
  - EXCEPTIONS lists the includes that break the layering today, each with its reason;
    one that no longer occurs fails too, so the list only shrinks;
  - docs/architecture.md carries the table as printed by --markdown, word for word.

  check_layers.py [TOP]        check the tree at TOP (default: this script's repository)
  check_layers.py --markdown   print the table for docs/architecture.md
  check_layers.py --self-test  plant bad includes in a temporary tree; fail unless caught
Exit status 1 when a check fails. Debian's python3, standard library only.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

# folder: (layer, folders or single headers it uses, what it is). A sub-folder with a
# row of its own (tests/fake) is apart from its parent; any other sub-folder belongs to
# its parent's row. None as the layer: free, its includes are not checked.
LAYERS: dict[str, tuple[int | None, list[str], str]] = {
    "common": (0, [], "Result, Error, Clock, Logger, files, text"),
    "wire": (0, [], "MAD and SA header offsets, methods, SA record layouts (sa/ and agent/)"),
    "conf": (1, ["common"], "every option: opensm.conf, TOML, command line"),
    "mad": (1, ["common", "wire"], "SMP attributes, framing, transport, SMP client"),
    "routing": (1, ["common"], "routing engines: topology in, LFTs out"),
    "cabling": (1, ["common", "wire"], "intended topology files, cabling check, degraded links"),
    "partitions": (1, ["common"], "partitions.conf parser, P_Key planner, ibsm-part"),
    "names": (1, ["common"], "the node name map, the name a node goes by"),
    "agent": (1, ["common", "wire"], "ibsm-agent, the host side; apart from the SM"),
    "rest": (1, ["common"], "the UFM REST subset ib-kubernetes calls: requests, API state, Basic auth"),
    "slurm": (1, ["common"], "Slurm's topology/tree from the fabric: the switch tree, hostlists, topology.conf"),
    "qos_policy": (2, ["common", "partitions"], "the QoS policy file"),
    "perfmgr": (2, ["common", "wire", "mad"], "the performance manager"),
    "sa": (3, ["common", "wire", "mad", "qos_policy"], "the Subnet Administrator"),
    "ops": (4, ["common", "conf", "mad", "perfmgr", "sa", "names", "cabling", "slurm"],
            "the operator seam: published snapshot, event bus, control queue"),
    "sm": (5, ["common", "conf", "mad", "routing", "partitions", "qos_policy", "sa", "perfmgr",
               "ops", "names", "cabling", "slurm"],
           "the SubnetManager, its sweep, and its components: every sub-folder without a row"),
    "ctl": (6, ["common", "conf", "names", "ops", "cabling", "slurm"], "control socket, console, events file, ibsm-ctl"),
    "metrics": (6, ["common", "mad", "perfmgr", "sa", "names", "ops", "cabling"],
                "the Prometheus endpoint"),
    "daemon": (7, ["common", "conf", "mad", "qos_policy", "sm", "ctl", "metrics"],
               "ibsm's main(): the composition root"),
    "docs": (8, ["common", "agent", "cabling", "conf", "ctl", "mad", "metrics", "names",
                 "partitions", "perfmgr", "qos_policy", "rest", "routing", "sa", "sm"],
             "error_catalog, the error ID table"),
    "tests/fake": (5, ["common", "mad", "ops", "tests/support/fabric.hpp"],
                   "the fake fabric of the unit tests"),
    "tests": (None, [], "tests include what they test"),
    "bench": (None, [], "benchmarks include what they measure"),
}

# (files of this folder, header they never include, why)
NEVER: list[tuple[str, str, str]] = [
    ("sm/*", "sm/subnet_manager.hpp",
     "a component takes its inputs and a SweepContext, never the SubnetManager"),
]

# (file, header it includes, why it is allowed for now): layering broken today.
EXCEPTIONS: list[tuple[str, str, str]] = [
]

SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".ipp", ".inc"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def is_build_dir(d: Path) -> bool:
    return (d / "build.ninja").exists() or (d / "meson-private").is_dir()


def source_files(top: Path):
    def walk(d: Path):
        for p in sorted(d.iterdir()):
            if p.name.startswith("."):
                continue
            if p.is_dir():
                if not is_build_dir(p):
                    yield from walk(p)
            elif p.suffix in SOURCE_SUFFIXES:
                yield p
    yield from walk(top)


def row_of(rel: str, table) -> str | None:
    """The table row a path (relative to the top, with /) belongs to: the longest row
    that is a folder prefix of it."""
    parts = rel.split("/")
    for n in range(len(parts) - 1, 0, -1):
        key = "/".join(parts[:n])
        if key in table:
            return key
    return None


def closure(row: str, table) -> set[str]:
    seen: set[str] = set()
    todo = list(table[row][1])
    while todo:
        u = todo.pop()
        if u in seen:
            continue
        seen.add(u)
        if u in table:
            todo.extend(table[u][1])
    return seen


def never_applies(pattern: str, rel: str, table) -> bool:
    if pattern.endswith("/*"):
        parent = pattern[:-2]
        parts = rel.split("/")
        return len(parts) > 2 and parts[0] == parent and row_of(rel, table) == parent
    return rel.startswith(pattern + "/")


def markdown(table=LAYERS, never=NEVER, exceptions=EXCEPTIONS) -> str:
    lines = ["| folder | layer | may include (and what those include) | what |",
             "|---|---|---|---|"]
    for folder, (layer, uses, what) in sorted(
            table.items(), key=lambda kv: (99 if kv[1][0] is None else kv[1][0], kv[0])):
        shown = "anything" if layer is None else ", ".join(f"`{u}`" for u in uses) or "-"
        lines.append(f"| `{folder}/` | {'-' if layer is None else layer} | {shown} | {what} |")
    lines.append("")
    for pattern, header, why in never:
        lines.append(f"- `{pattern}` never includes `{header}`: {why}.")
    for file, header, why in exceptions:
        lines.append(f"- Exception: `{file}` includes `{header}`: {why}.")
    return "\n".join(lines) + "\n"


def check(top: Path, table=LAYERS, never=NEVER, exceptions=EXCEPTIONS) -> list[str]:
    problems: list[str] = []
    # The table: its rows use only lower layers, and each names a folder of the tree.
    for folder, (layer, uses, _) in table.items():
        if not (top / folder).is_dir():
            problems.append(f"{folder}: a row of the layer table, but no such folder")
        for u in uses:
            if Path(u).suffix in SOURCE_SUFFIXES:  # one header of a free folder
                if not (top / u).exists():
                    problems.append(f"layer table: {folder} uses {u}, which does not exist")
                continue
            if layer is None:
                continue
            base = row_of(u, table) if u not in table else u
            if base is None or table[base][0] is None or table[base][0] >= layer:
                problems.append(f"layer table: {folder} (layer {layer}) uses {u}, "
                                "which is not of a lower layer")
    files = list(source_files(top))
    tops = sorted({f.relative_to(top).parts[0] for f in files if len(f.relative_to(top).parts) > 1})
    for t in tops:
        if t not in table:
            problems.append(f"{t}/: a folder of C++ sources without a row in the layer table "
                            "(scripts/check_layers.py, LAYERS)")
    used_exceptions: set[tuple[str, str]] = set()
    for f in files:
        rel = f.relative_to(top).as_posix()
        src = row_of(rel, table)
        if src is None or table[src][0] is None:
            continue
        layer, _, _ = table[src]
        allowed = closure(src, table)
        for no, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            beside = f.parent / inc
            target = inc
            if beside.exists():
                try:
                    target = beside.resolve().relative_to(top.resolve()).as_posix()
                except ValueError:
                    continue  # outside the tree
            dst = row_of(target, table)
            if dst is None:
                continue  # not ours (a library's header named with quotes)
            if (rel, target) in {(e[0], e[1]) for e in exceptions}:
                used_exceptions.add((rel, target))
                continue
            for pattern, header, why in never:
                if target == header and never_applies(pattern, rel, table):
                    problems.append(f"{rel}:{no}: {src} (layer {layer}) includes {target}, "
                                    f"which {pattern} never includes: {why}")
            if dst == src or dst in allowed or target in allowed:
                continue
            dlayer = table[dst][0]
            how = ("a layer above its own" if dlayer is None or dlayer >= layer
                   else f"a folder {src} does not use")
            problems.append(f"{rel}:{no}: {src} (layer {layer}) includes {target} of {dst} "
                            f"(layer {dlayer}): {how}; {src} may include "
                            f"{', '.join(sorted(allowed)) or 'only itself'}")
    for e in exceptions:
        if (e[0], e[1]) not in used_exceptions:
            problems.append(f"{e[0]}: listed in EXCEPTIONS for including {e[1]}, which it no "
                            "longer does; remove the line")
    arch = top / "docs" / "architecture.md"
    if arch.exists() and table is LAYERS and markdown() not in arch.read_text():
        problems.append("docs/architecture.md: the layer table differs from "
                        "scripts/check_layers.py's; paste `scripts/check_layers.py --markdown`")
    return problems


def self_test() -> int:
    """Plants bad includes in a temporary tree laid out as the real table says and fails
    unless each is caught with file:line and both layers, and a clean tree passes."""
    failures = []

    def tree(files: dict[str, str]) -> list[str]:
        with tempfile.TemporaryDirectory() as d:
            top = Path(d)
            for folder in LAYERS:
                (top / folder).mkdir(parents=True, exist_ok=True)
            base = {"common/error.hpp": "", "mad/smp.hpp": '#include "common/error.hpp"\n',
                    "sm/fabric/fabric.hpp": '#include "mad/smp.hpp"\n', "sm/subnet_manager.hpp": "",
                    "ops/ops.hpp": '#include "sa/snapshot.hpp"\n', "sa/snapshot.hpp": "",
                    "ctl/server.cpp": '#include "ops/ops.hpp"\n',
                    "tests/support/fabric.hpp": "",
                    "tests/unit/sm_test.cpp": '#include "daemon/main.hpp"\n'}
            for e in EXCEPTIONS:
                base[e[0]] = f'#include "{e[1]}"\n'
                base.setdefault(e[1], "")
            for rel, text in {**base, **files}.items():
                (top / rel).parent.mkdir(parents=True, exist_ok=True)
                (top / rel).write_text(text)
            return check(top)

    def expect(name, files, *needles):
        got = tree(files)
        if not needles and got:
            failures.append(f"{name}: expected no problem, got {got}")
        for n in needles:
            if not any(n in p for p in got):
                failures.append(f"{name}: expected a problem with {n!r}, got {got}")

    expect("clean tree", {})
    expect("ctl includes sm", {"ctl/bad.cpp": '// x\n#include "sm/fabric/fabric.hpp"\n'},
           "ctl/bad.cpp:2: ctl (layer 6) includes sm/fabric/fabric.hpp of sm (layer 5)")
    expect("ops includes sm", {"ops/bad.hpp": '#include "sm/fabric/fabric.hpp"\n'},
           "ops/bad.hpp:1: ops (layer 4) includes sm/fabric/fabric.hpp of sm (layer 5): "
           "a layer above its own")
    expect("common includes mad", {"common/bad.hpp": '#include  "mad/smp.hpp"\n'},
           "common/bad.hpp:1: common (layer 0) includes mad/smp.hpp of mad (layer 1)")
    expect("sm includes ctl", {"sm/bad.cpp": '#include "ctl/server.hpp"\n'},
           "sm/bad.cpp:1: sm (layer 5) includes ctl/server.hpp of ctl (layer 6)")
    expect("a component includes the SM",
           {"sm/lids/lids.cpp": '#include "sm/subnet_manager.hpp"\n'},
           "sm/lids/lids.cpp:1: sm (layer 5) includes sm/subnet_manager.hpp, which sm/* never")
    expect("the fake fabric includes the SM",
           {"tests/fake/bad.cpp": '#include "sm/fabric/fabric.hpp"\n'},
           "tests/fake/bad.cpp:1: tests/fake (layer 5) includes sm/fabric/fabric.hpp of sm (layer 5)")
    expect("a folder without a row", {"newlib/layout.hpp": ""},
           "newlib/: a folder of C++ sources without a row")
    # The list is empty today: the self-test plants an exception of its own.
    planted = ("agent/plan.cpp", "partitions/diff.hpp", "planted by the self-test")
    EXCEPTIONS.append(planted)
    try:
        expect("a listed exception is allowed", {})
        expect("a stale exception", {planted[0]: ""}, "no longer does")
    finally:
        EXCEPTIONS.remove(planted)
    expect("tests and bench are free", {"bench/x.cpp": '#include "daemon/x.hpp"\n'})
    expect("a relative include", {"mad/attr/bad.hpp": '#include "../../sm/fabric/fabric.hpp"\n'},
           "mad/attr/bad.hpp:1: mad (layer 1) includes sm/fabric/fabric.hpp of sm (layer 5)")
    for f in failures:
        print(f"check_layers self-test: {f}", file=sys.stderr)
    print(f"check_layers self-test: {'FAILED' if failures else 'ok'}")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[1:2] == ["--self-test"]:
        return self_test()
    if argv[1:2] == ["--markdown"]:
        sys.stdout.write(markdown())
        return 0
    top = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1]
    problems = check(top)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check_layers: {len(problems)} problem(s); the table is at the top of "
              "scripts/check_layers.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
