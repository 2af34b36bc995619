#!/usr/bin/env python3
"""Check that every library target declares the required-reason APIs it calls.

Usage: check-privacy-manifests.py SOURCES_DIR [PACKAGE_JSON]

Apple rejects an upload (ITMS-91053) whose code calls a "required reason" API that no privacy
manifest declares. For each target folder under SOURCES_DIR this scans the Swift and C sources
(comments and string literals left out) for the APIs below, reads the target's
PrivacyInfo.xcprivacy with plistlib, and fails when a source calls an API of a category the
manifest does not declare, when the plist does not parse, when it tracks, or when a reason code is
not one Apple allows for its category. A category declared that no source calls is a warning.
With PACKAGE_JSON (`swift package dump-package`), each manifest must also be a resource of its
target, or it never reaches the app.

Exit 0 when every target holds, 1 naming each problem (file:line, API, category), 2 on usage.
"""
import json
import pathlib
import plistlib
import re
import sys

MANIFEST = "PrivacyInfo.xcprivacy"

# Category -> (the API patterns of Apple's list, the reason codes Apple allows for it).
CATEGORIES = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": (
        [
            r"\b(?:stat|fstat|lstat|fstatat|getattrlist|getattrlistbulk|fgetattrlist|getattrlistat)\s*\(",
            r"\.(?:creationDate|modificationDate|fileModificationDate|contentModificationDate)(?:Key)?\b",
            r"\battributesOfItem\b",
        ],
        {"DDA9.1", "C617.1", "3B52.1", "0A2A.1"},
    ),
    "NSPrivacyAccessedAPICategorySystemBootTime": (
        [r"\bsystemUptime\b", r"\bmach_absolute_time\b"],
        {"35F9.1", "8FFB.1", "3D61.1"},
    ),
    "NSPrivacyAccessedAPICategoryDiskSpace": (
        [
            r"\bvolumeAvailableCapacity\w*",
            r"\bvolumeTotalCapacity\w*",
            r"\b(?:statfs|statvfs|fstatfs|fstatvfs)\s*\(",
            r"\.system(?:Free)?Size\b",
        ],
        {"85F4.1", "E174.1", "7D9E.1", "B728.1"},
    ),
    "NSPrivacyAccessedAPICategoryUserDefaults": ([r"\bUserDefaults\b"], {"CA92.1", "1C8F.1", "C56D.1", "AC6B.1"}),
    "NSPrivacyAccessedAPICategoryActiveKeyboards": ([r"\bactiveInputModes\b"], {"3EC4.1", "54BD.1"}),
}

COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"', re.S)


def code_only(text):
    """The text with comments and string literals blanked, lines kept in place."""
    return COMMENT_OR_STRING.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def calls(target_dir):
    """category -> [(path, line, api)] for every required-reason API the target's sources call."""
    found = {}
    for path in sorted(p for p in target_dir.rglob("*") if p.suffix in (".swift", ".c", ".h", ".m")):
        text = code_only(path.read_text(encoding="utf-8", errors="replace"))
        for category, (patterns, _) in CATEGORIES.items():
            for pattern in patterns:
                for match in re.finditer(pattern, text):
                    line = text.count("\n", 0, match.start()) + 1
                    found.setdefault(category, []).append((path, line, match.group(0).rstrip("( ")))
    return found


def declared(manifest_path, problems):
    """category -> reasons the manifest declares; problems appended for what does not hold."""
    try:
        with manifest_path.open("rb") as handle:
            plist = plistlib.load(handle)
    except Exception as error:  # plistlib raises several types for a broken file
        problems.append(f"{manifest_path}: not a property list ({error}); fix its XML")
        return {}
    if not isinstance(plist, dict):
        problems.append(f"{manifest_path}: the top level must be a dictionary")
        return {}
    if plist.get("NSPrivacyTracking") is not False:
        problems.append(f"{manifest_path}: NSPrivacyTracking must be false (the library tracks no one)")
    result = {}
    for index, entry in enumerate(plist.get("NSPrivacyAccessedAPITypes", [])):
        category = entry.get("NSPrivacyAccessedAPIType") if isinstance(entry, dict) else None
        reasons = entry.get("NSPrivacyAccessedAPITypeReasons", []) if isinstance(entry, dict) else []
        if category not in CATEGORIES:
            problems.append(f"{manifest_path}: NSPrivacyAccessedAPITypes[{index}] names an unknown category {category!r}")
            continue
        allowed = CATEGORIES[category][1]
        if not reasons or any(reason not in allowed for reason in reasons):
            problems.append(
                f"{manifest_path}: {category} needs reason codes from {sorted(allowed)}, has {reasons}")
        result[category] = reasons
    return result


def resources_by_target(package_json):
    """target name -> the paths of its resources, from `swift package dump-package`."""
    package = json.loads(package_json)
    return {
        target["name"]: [resource.get("path") for resource in target.get("resources", [])]
        for target in package.get("targets", [])
    }


def check(sources_dir, package_json=None):
    """(problems, warnings) for every target folder under sources_dir."""
    problems, warnings = [], []
    resources = resources_by_target(package_json) if package_json is not None else None
    for target_dir in sorted(p for p in sources_dir.iterdir() if p.is_dir()):
        used = calls(target_dir)
        manifest_path = target_dir / MANIFEST
        if not manifest_path.exists():
            for category, places in used.items():
                for path, line, api in places:
                    problems.append(
                        f"{path}:{line}: calls {api} ({category}), and {target_dir.name} has no {MANIFEST}; "
                        f"add one declaring {category}")
            continue
        declarations = declared(manifest_path, problems)
        for category, places in used.items():
            if category not in declarations:
                for path, line, api in places:
                    problems.append(
                        f"{path}:{line}: calls {api} ({category}), which {manifest_path} does not declare; "
                        "declare it with its reason code, or stop calling it")
        for category in declarations:
            if category not in used:
                warnings.append(f"{manifest_path}: declares {category}, which no source of {target_dir.name} calls")
        if resources is not None and MANIFEST not in resources.get(target_dir.name, []):
            problems.append(
                f"{manifest_path}: not a resource of target {target_dir.name}; "
                f'add resources: [.copy("{MANIFEST}")] to it in Package.swift')
    return problems, warnings


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    package_json = pathlib.Path(argv[2]).read_text(encoding="utf-8") if len(argv) == 3 else None
    problems, warnings = check(pathlib.Path(argv[1]), package_json)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"privacy manifests: every required-reason API called under {argv[1]} is declared")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
