#!/usr/bin/env python3
"""Tests of check-privacy-manifests.py on small source trees in temporary directories."""
import importlib.util
import json
import pathlib
import plistlib
import tempfile
import unittest

SPEC = importlib.util.spec_from_file_location(
    "check_privacy_manifests", pathlib.Path(__file__).with_name("check-privacy-manifests.py"))
checker = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(checker)

TIMESTAMPS = "NSPrivacyAccessedAPICategoryFileTimestamp"


def manifest(categories, tracking=False):
    return plistlib.dumps({
        "NSPrivacyTracking": tracking,
        "NSPrivacyTrackingDomains": [],
        "NSPrivacyCollectedDataTypes": [],
        "NSPrivacyAccessedAPITypes": [
            {"NSPrivacyAccessedAPIType": category, "NSPrivacyAccessedAPITypeReasons": reasons}
            for category, reasons in categories.items()
        ],
    })


class CheckPrivacyManifestsTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.sources = pathlib.Path(self.directory.name)
        self.target = self.sources / "Runtime"
        self.target.mkdir()

    def tearDown(self):
        self.directory.cleanup()

    def write(self, name, text):
        path = self.target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8") if isinstance(text, str) else path.write_bytes(text)
        return path

    def test_a_declared_call_passes(self):
        self.write("Files.swift", "var info = stat()\nguard fstat(fd, &info) == 0 else { return }\n")
        self.write(checker.MANIFEST, manifest({TIMESTAMPS: ["C617.1"]}))
        problems, warnings = checker.check(self.sources)
        self.assertEqual((problems, warnings), ([], []))

    def test_a_call_the_manifest_does_not_declare_fails_naming_file_line_and_category(self):
        self.write("Files.swift", "let a = 1\nlet up = ProcessInfo.processInfo.systemUptime\n")
        self.write(checker.MANIFEST, manifest({}))
        problems, _ = checker.check(self.sources)
        self.assertEqual(len(problems), 1)
        self.assertIn("Files.swift:2: calls systemUptime (NSPrivacyAccessedAPICategorySystemBootTime)", problems[0])

    def test_a_call_without_any_manifest_fails(self):
        self.write("Prefs.swift", "let defaults = UserDefaults.standard\n")
        problems, _ = checker.check(self.sources)
        self.assertTrue(problems and "has no PrivacyInfo.xcprivacy" in problems[0])

    def test_comments_and_strings_are_not_calls(self):
        self.write("Doc.swift", '/// sized by `fstat(2)`\nlet s = "UserDefaults"\n/* stat( */\n')
        problems, warnings = checker.check(self.sources)
        self.assertEqual((problems, warnings), ([], []))

    def test_a_category_declared_but_never_called_is_a_warning(self):
        self.write("Plain.swift", "let x = 1\n")
        self.write(checker.MANIFEST, manifest({TIMESTAMPS: ["C617.1"]}))
        problems, warnings = checker.check(self.sources)
        self.assertEqual(problems, [])
        self.assertEqual(len(warnings), 1)
        self.assertIn("no source of Runtime calls", warnings[0])

    def test_a_manifest_that_does_not_parse_fails(self):
        self.write(checker.MANIFEST, "<plist><dict><key>NSPrivacyTracking</key>")
        problems, _ = checker.check(self.sources)
        self.assertTrue(problems and "not a property list" in problems[0])

    def test_tracking_or_a_reason_of_another_category_fails(self):
        self.write("Files.swift", "fstat(fd, &info)\n")
        self.write(checker.MANIFEST, manifest({TIMESTAMPS: ["CA92.1"]}, tracking=True))
        problems, _ = checker.check(self.sources)
        self.assertTrue(any("NSPrivacyTracking must be false" in p for p in problems))
        self.assertTrue(any("needs reason codes" in p for p in problems))

    def test_a_manifest_that_is_not_a_resource_of_its_target_fails(self):
        self.write("Files.swift", "fstat(fd, &info)\n")
        self.write(checker.MANIFEST, manifest({TIMESTAMPS: ["C617.1"]}))
        package = json.dumps({"targets": [{"name": "Runtime", "resources": []}]})
        problems, _ = checker.check(self.sources, package)
        self.assertTrue(problems and "not a resource of target Runtime" in problems[0])
        package = json.dumps({"targets": [{"name": "Runtime", "resources": [{"path": checker.MANIFEST}]}]})
        self.assertEqual(checker.check(self.sources, package), ([], []))


if __name__ == "__main__":
    unittest.main()
