#!/usr/bin/python3
"""The verdict on one KUnit suite from kunit.py's JSON results (kunit.py
run --json, or kunit.py parse --json on a KTAP file): every test case of
SUITE, at any depth (parameters included), must be PASS.

Usage: kunit-verdict.py JSON SUITE [CASES]
Prints "N test cases: PASS n[, FAIL f ...]" and each case that did not
pass (to stderr); exits 0 only if the suite has cases, all passed and,
with CASES, there are exactly CASES of them (a parameter that silently
did not run has no line in KTAP to fail).
"""
import json
import sys
from collections import Counter


def find(group, suite):
    if group.get("name") == suite:
        return group
    for sub in group.get("sub_groups", []):
        found = find(sub, suite)
        if found:
            return found
    return None


def cases(group, path):
    for case in group.get("test_cases", []):
        yield path + [case["name"]], case["status"]
    for sub in group.get("sub_groups", []):
        yield from cases(sub, path + [sub["name"]])


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and not sys.argv[3].isdigit()):
        print("usage: kunit-verdict.py JSON SUITE [CASES]")
        return 2
    path, suite = sys.argv[1], sys.argv[2]
    want = int(sys.argv[3]) if len(sys.argv) == 4 else None
    try:
        root = json.load(open(path))
    except (OSError, ValueError) as err:
        print(f"cannot read {path}: {err}")
        return 1
    group = find(root, suite)
    if group is None:
        print(f"no suite {suite} in the results")
        return 1
    res = list(cases(group, []))
    count = Counter(status for _, status in res)
    for name, status in res:
        if status != "PASS":
            print(f"  {status}: {'.'.join(name)}", file=sys.stderr)
    print(f"{len(res)} test cases: "
          + ", ".join(f"{k} {v}" for k, v in sorted(count.items()))
          + ("" if want is None or want == len(res) else f" (expected {want} cases)"))
    if want is not None and want != len(res):
        return 1
    return 0 if res and set(count) == {"PASS"} else 1


if __name__ == "__main__":
    sys.exit(main())
