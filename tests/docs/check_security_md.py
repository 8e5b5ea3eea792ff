#!/usr/bin/env python3
"""docs/security.md names, for every surface, the tests that play the attacker. This
check keeps those names true: every test file the table names exists, every
`file.py::test_name` is a function of that file, and every GoogleTest name written as
Suite.Name (or Suite.\\* for a whole suite) is a TEST of some file under tests/.
Exits 1 naming each stale reference."""

from __future__ import annotations

import re
import sys
from pathlib import Path

top = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
rows = [l for l in (top / "docs" / "security.md").read_text().splitlines()
        if l.startswith("| ") and not l.startswith("| surface")]
sources = {p: p.read_text(errors="replace") for p in (top / "tests").rglob("*.cpp")}
gtests = set()
for text in sources.values():
    for suite, name in re.findall(r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", text):
        gtests.add((suite, name))
suites = {s for s, _ in gtests}
problems = []
for row in rows:
    cells = row.split(" | ")
    attackers = cells[-1]
    surface = cells[0].lstrip("| ")[:60]
    for path in re.findall(r"`?(tests/[\w/.-]+\.(?:py|cpp))", row):
        if not (top / path).exists():
            problems.append(f"{surface}: {path} does not exist")
    # `file.py::a`, then `::b` for another test of the same file.
    last = None
    for path, func in re.findall(r"(tests/[\w/.-]+\.py)?::(test_\w+)", attackers):
        last = path or last
        f = top / last if last else None
        if f is None:
            problems.append(f"{surface}: ::{func} names no file")
        elif f.exists() and not re.search(rf"^def {func}\(", f.read_text(), re.M):
            problems.append(f"{surface}: {last} has no test {func}")
    for suite, name in re.findall(r"\b([A-Z]\w+)\.(\w+|\\\*)", attackers):
        if name == "\\*":
            if suite not in suites:
                problems.append(f"{surface}: no GoogleTest suite {suite}")
        elif name[0].isupper() and (suite, name) not in gtests:
            problems.append(f"{surface}: no GoogleTest {suite}.{name}")
for p in problems:
    print(f"docs/security.md: {p}")
print(f"docs/security.md: {len(rows)} surfaces, {len(problems)} stale references")
sys.exit(1 if problems else 0)
