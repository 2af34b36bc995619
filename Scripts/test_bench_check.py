#!/usr/bin/env python3
"""Tests of bench-check.py on small result files in temporary directories, and of the checked-in
thresholds against the benchmark's sources (a renamed row fails here, before any bench run)."""
import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "Scripts" / "bench-check.py"


def row(operation, ratio, floor="the floor", size="10-game page"):
    return {"operation": operation, "size": size, "floor": floor, "ratio": ratio,
            "medianNanoseconds": ratio * 100, "p99Nanoseconds": ratio * 100, "floorMedianNanoseconds": 100}


class BenchCheckTests(unittest.TestCase):
    def setUp(self):
        self.directory = pathlib.Path(tempfile.mkdtemp())
        thresholds = self.directory / "thresholds"
        thresholds.mkdir()
        (thresholds / "runtime.json").write_text(json.dumps({"section": "runtime", "ceilings": [
            {"name": "disk hit", "operation": "disk hit", "floor": "the floor", "ceiling": 1.3},
            {"name": "big index", "operation": "index", "size": "5000 entries", "floor": "the floor", "ceiling": 4},
        ]}))
        (thresholds / "day.json").write_text(json.dumps({"section": "day", "ceilings": [
            {"name": "day", "operation": "simulated day", "floor": "no cache", "ceiling": 0.35},
        ]}))

    def run_check(self, rows, *sections):
        results = self.directory / "results.json"
        results.write_text(json.dumps(rows))
        return subprocess.run(
            [sys.executable, str(SCRIPT), str(results), str(self.directory / "thresholds"), *sections],
            capture_output=True, text=True)

    def test_rows_within_their_ceilings_pass(self):
        rows = [row("disk hit", 1.29), row("index", 3.9, size="5000 entries"), row("index", 9, size="10 entries")]
        result = self.run_check(rows, "runtime")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("2 rows within their ceilings", result.stdout)

    def test_a_planted_slowdown_fails_naming_the_row_the_ratio_and_the_ceiling(self):
        rows = [row("disk hit", 1.31), row("index", 3.9, size="5000 entries")]
        result = self.run_check(rows, "runtime")
        self.assertEqual(result.returncode, 1)
        self.assertIn("'disk hit' [10-game page] is 1.31× 'the floor', past its ceiling of 1.3×", result.stderr)
        self.assertIn("PAST ITS CEILING", result.stdout)

    def test_a_memory_row_past_its_ceiling_is_named_in_mebibytes(self):
        (self.directory / "thresholds" / "pipeline.json").write_text(json.dumps({"section": "pipeline", "ceilings": [
            {"name": "memory", "operation": "peak memory", "size": "100000 games", "floor": "1 MiB", "ceiling": 250},
        ]}))
        memory = dict(row("peak memory", 251, floor="1 MiB", size="100000 games, snapshot"), unit="MiB")
        result = self.run_check([memory], "pipeline")
        self.assertEqual(result.returncode, 1)
        self.assertIn("is 251.00 MiB '1 MiB', past its ceiling of 250 MiB", result.stderr)

    def test_a_ceiling_no_row_matches_fails_when_its_section_ran(self):
        result = self.run_check([row("disk hit", 1.0), row("renamed index", 1.0, size="5000 entries")], "runtime")
        self.assertEqual(result.returncode, 1)
        self.assertIn("big index: no row 'index' against 'the floor'", result.stderr)

    def test_sections_that_did_not_run_are_not_checked(self):
        result = self.run_check([row("disk hit", 1.0), row("index", 1.0, size="5000 entries")], "runtime")
        self.assertEqual(result.returncode, 0, result.stderr)
        result = self.run_check([row("disk hit", 1.0), row("index", 1.0, size="5000 entries")])
        self.assertEqual(result.returncode, 1)
        self.assertIn("day: no row", result.stderr)

    def test_missing_results_say_to_run_the_benchmarks(self):
        result = subprocess.run(
            [sys.executable, str(SCRIPT), str(self.directory / "none.json"), str(self.directory / "thresholds")],
            capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("run `make bench` first", result.stderr)


class CheckedInThresholdsTests(unittest.TestCase):
    def test_every_ceiling_names_a_row_and_floor_the_benchmarks_write(self):
        sources = "".join(path.read_text() for path in (ROOT / "Benchmarks" / "Sources").rglob("*.swift"))
        files = sorted((ROOT / "Benchmarks" / "Thresholds").glob("*.json"))
        self.assertEqual([path.stem for path in files], ["day", "pipeline", "runtime"])
        for path in files:
            thresholds = json.loads(path.read_text())
            self.assertEqual(thresholds["section"], path.stem)
            for ceiling in thresholds["ceilings"]:
                self.assertGreater(ceiling["ceiling"], 0, ceiling["name"])
                # The day's operations are built from each pattern's name: their fixed part is in the source.
                operation = (
                    '"' + ceiling["operation"].split(", ")[0] if path.stem == "day" else json.dumps(ceiling["operation"]))
                for text in (operation, json.dumps(ceiling["floor"])[:-1]):
                    self.assertTrue(text in sources, f"{path.name}, {ceiling['name']}: no {text} in Benchmarks/Sources")


if __name__ == "__main__":
    unittest.main(verbosity=1)
