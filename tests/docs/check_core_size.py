#!/usr/bin/python3
"""The SM core stays a loop, not a god object: `class SubnetManager` (sm/subnet_manager.hpp)
holds at most MAX_MEMBERS data members, at most MAX_BOOLS of them bools, and sm/ holds at
most MAX_TOP_FILES files at its top (docs/architecture.md, "The SM core"). A new piece of
state belongs to the component whose step it serves (sm/<step>/), not to the SM.

  check_core_size.py [TOP]         check the tree at TOP
  check_core_size.py --self-test   count a small planted class; fail unless the count is right
Exit status 1 when a limit is passed, naming the members. Debian's python3, stdlib only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MAX_MEMBERS = 30
MAX_BOOLS = 5
MAX_TOP_FILES = 12


def class_body(src: str, name: str) -> str:
    """The text of the class at brace depth 1 (nested bodies dropped, their braces kept)."""
    at = src.index(f"class {name} {{")
    i = src.index("{", at)
    depth, out = 0, []
    for c in src[i:]:
        if c == "{":
            depth += 1
            if depth == 2:
                out.append("{")
            continue
        if c == "}":
            depth -= 1
            if depth == 0:
                break
            if depth == 1:
                out.append("}")
            continue
        if depth == 1:
            out.append(c)
    return "".join(out)


def data_members(src: str, name: str) -> tuple[list[str], list[str]]:
    body = re.sub(r"//[^\n]*", "", class_body(src, name))
    prev = None
    while prev != body:  # template arguments hold no members: make them opaque
        prev, body = body, re.sub(r"<[^<>]*>", "<>", body)
    members, bools = [], []
    for stmt in re.split(r";|\{\}", body):
        s = re.sub(r"\s+", " ", stmt).strip()
        s = re.sub(r"^(public|private|protected):", "", s).strip()
        if not s or s.startswith(("using ", "static ", "friend ", "template", "struct ", "class ",
                                  "enum ", "#")):
            continue
        m = re.match(r"([^(=]*?)\b(\w+_)\s*(\{.*\}|=.*)?$", s)
        if not m or "(" in m.group(1):
            continue  # a function declaration
        members.append(m.group(2))
        if re.match(r"(const )?(std::atomic<> |bool )", s):
            bools.append(m.group(2))
    return members, bools


def check(top: Path) -> list[str]:
    problems = []
    members, bools = data_members((top / "sm" / "subnet_manager.hpp").read_text(), "SubnetManager")
    if len(members) > MAX_MEMBERS:
        problems.append(f"sm/subnet_manager.hpp: SubnetManager has {len(members)} data members "
                        f"(at most {MAX_MEMBERS}): {', '.join(members)}")
    if len(bools) > MAX_BOOLS:
        problems.append(f"sm/subnet_manager.hpp: SubnetManager has {len(bools)} bools "
                        f"(at most {MAX_BOOLS}): {', '.join(bools)}")
    files = sorted(p.name for p in (top / "sm").iterdir() if p.is_file())
    if len(files) > MAX_TOP_FILES:
        problems.append(f"sm/: {len(files)} files at its top (at most {MAX_TOP_FILES}): "
                        f"{', '.join(files)}")
    return problems


def self_test() -> int:
    src = """class SubnetManager {
 public:
  void f(int a) { x_ = a; }
  bool on() const { return on_; }
 private:
  std::function<void(const std::string&)> hook_;
  std::map<int, std::vector<int>> table_{};
  Logger log_ = make(log_, 3);
  bool on_ = false;
  int x_ = 0;
  static constexpr int kMax = 3;
  void g(std::map<int, int> m);
};"""
    members, bools = data_members(src, "SubnetManager")
    want = (["hook_", "table_", "log_", "on_", "x_"], ["on_"])
    if (members, bools) != want:
        print(f"self-test: counted {members} / {bools}, want {want[0]} / {want[1]}")
        return 1
    return 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["--self-test"]:
        return self_test()
    top = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[2]
    problems = check(top)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
