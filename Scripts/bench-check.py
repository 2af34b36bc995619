#!/usr/bin/env python3
"""Checks a `make bench` run against the ceilings in Benchmarks/Thresholds/*.json.

Usage: bench-check.py RESULTS.json THRESHOLDS_DIR [SECTION ...]

Every ceiling of a section that ran (all sections when none is named) must match at least one row
of RESULTS.json (by operation, by the floor's start, and by size when the ceiling names one: a
substring), and every matching row's ratio must be at most the ceiling. Prints one line per row checked; exits 1
naming each row past its ceiling, or each ceiling no row matched (a renamed row, a skipped part).
Sections without a thresholds file (`images`, `memory`, ...) are not checked.
"""

import json
import sys
from pathlib import Path


def load_ceilings(directory, sections):
    """The ceilings of the named sections' files (every file when `sections` is empty)."""
    ceilings = []
    for path in sorted(Path(directory).glob("*.json")):
        thresholds = json.loads(path.read_text())
        if sections and thresholds["section"] not in sections:
            continue
        for ceiling in thresholds["ceilings"]:
            ceilings.append(dict(ceiling, file=path.name))
    return ceilings


def matches(ceiling, row):
    return (
        row["operation"] == ceiling["operation"]
        and row["floor"].startswith(ceiling["floor"])
        and ceiling.get("size", "") in row["size"]
    )


def check(rows, ceilings):
    """(lines to print, problems): one line per row checked, one problem per failure."""
    lines, problems = [], []
    for ceiling in ceilings:
        matched = [row for row in rows if matches(ceiling, row)]
        if not matched:
            problems.append(
                f"{ceiling['name']}: no row '{ceiling['operation']}' against '{ceiling['floor']}'"
                f" ({ceiling['file']}): did its section run in full, or was the row renamed?"
            )
            continue
        for row in matched:
            ratio = row["ratio"]
            # Peak memory rows are against a floor of 1 MiB: their ratio is the peak in MiB.
            unit = " MiB" if row.get("unit") == "MiB" else "×"
            verdict = "ok" if ratio <= ceiling["ceiling"] else "PAST ITS CEILING"
            line = (
                f"{verdict:>16}  {ratio:7.2f}{unit} ≤ {ceiling['ceiling']:g}{unit}  {row['operation']} [{row['size']}]"
                f" against {row['floor']}"
            )
            lines.append(line)
            if ratio > ceiling["ceiling"]:
                problems.append(
                    f"{ceiling['name']}: '{row['operation']}' [{row['size']}] is {ratio:.2f}{unit} '{row['floor']}',"
                    f" past its ceiling of {ceiling['ceiling']:g}{unit} ({ceiling['file']})"
                )
    return lines, problems


def main(arguments):
    if len(arguments) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    results, directory, sections = arguments[0], arguments[1], set(arguments[2:])
    try:
        rows = json.loads(Path(results).read_text())
    except FileNotFoundError:
        print(f"bench-check: {results} not found: run `make bench` first", file=sys.stderr)
        return 2
    lines, problems = check(rows, load_ceilings(directory, sections))
    for line in lines:
        print(line)
    for problem in problems:
        print(f"bench-check: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"bench-check: {len(lines)} rows within their ceilings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
