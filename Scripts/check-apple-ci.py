#!/usr/bin/env python3
"""Check the Apple CI files that cannot run here: they parse, and use only documented flags.

Usage: check-apple-ci.py WORKFLOW.yml SPI.yml

The GitHub workflow must parse as YAML, build the products an app adds (CasinoCache,
CasinoCacheTesting) for the iOS, tvOS and watchOS simulators and macOS, run `swift test`, and
call `xcodebuild` with documented actions and options only. `.spi.yml` must parse and name the
documented modules. Exit 0 when both hold, 1 naming each problem, 2 on usage or without PyYAML.
"""
import re
import shlex
import sys

try:
    import yaml
except ImportError:
    sys.exit("check-apple-ci: Python's yaml is missing; install it with: pip install pyyaml")

# `xcodebuild -help` (Xcode 16): the actions and the options this workflow may use.
XCODEBUILD_ACTIONS = {"build", "test", "build-for-testing", "test-without-building", "clean", "archive"}
XCODEBUILD_OPTIONS_WITH_VALUE = {"-scheme", "-destination", "-configuration", "-derivedDataPath", "-sdk", "-workspace"}
XCODEBUILD_FLAGS = {"-quiet", "-skipMacroValidation", "-skipPackagePluginValidation"}
DESTINATIONS = {"iOS Simulator", "macOS", "tvOS Simulator", "watchOS Simulator"}


def xcodebuild_problems(script):
    problems = []
    for line in script.splitlines():
        line = line.strip()
        if not line.startswith("xcodebuild"):
            continue
        words = shlex.split(line)[1:]
        index = 0
        while index < len(words):
            word = words[index]
            if word in XCODEBUILD_OPTIONS_WITH_VALUE:
                index += 2
                continue
            if word not in XCODEBUILD_ACTIONS | XCODEBUILD_FLAGS:
                problems.append(f"xcodebuild: '{word}' is not a documented action or option")
            index += 1
    return problems


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    problems = []
    try:
        with open(argv[1], encoding="utf-8") as handle:
            workflow = yaml.safe_load(handle)
        with open(argv[2], encoding="utf-8") as handle:
            spi = yaml.safe_load(handle)
    except (OSError, yaml.YAMLError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    jobs = workflow.get("jobs", {}) if isinstance(workflow, dict) else {}
    scripts = [step.get("run", "") for job in jobs.values() for step in job.get("steps", []) if isinstance(step, dict)]
    text = "\n".join(scripts)
    for script in scripts:
        problems += xcodebuild_problems(script)
    for scheme in ("CasinoCache", "CasinoCacheTesting"):
        if not re.search(rf"\b{scheme}\b", text):
            problems.append(f"{argv[1]}: does not build {scheme}")
    matrix = [d for job in jobs.values() for d in job.get("strategy", {}).get("matrix", {}).get("destination", [])]
    for platform in DESTINATIONS:
        if f"generic/platform={platform}" not in matrix:
            problems.append(f"{argv[1]}: no destination generic/platform={platform}")
    if "swift test" not in text:
        problems.append(f"{argv[1]}: does not run swift test")
    configs = (spi or {}).get("builder", {}).get("configs", []) if isinstance(spi, dict) else []
    documented = {target for config in configs for target in config.get("documentation_targets", [])}
    if spi.get("version") != 1 or not {"CasinoCache", "CasinoCatalog"} <= documented:
        problems.append(f"{argv[2]}: needs version 1 and documentation_targets CasinoCache and CasinoCatalog")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print(f"Apple CI files: {argv[1]} and {argv[2]} parse and use documented xcodebuild flags only")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
