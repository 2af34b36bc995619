#!/usr/bin/env python3
"""Validate a snapshot directory against the snapshot contract's JSON Schema.

Usage: check-schema.py SCHEMA.json SNAPSHOT_DIR

Checks manifest.json and every *.json.gz (inflated) against the document, and the index's JSON
files, when there is an index, against their definitions (index.json: SnapshotIndex,
index/images.json: SnapshotImageList), with a validator no one here wrote (Python's jsonschema,
draft 2020-12). Exit 0 when every file validates, 1 naming each file that does not,
2 when jsonschema is missing or the arguments are wrong.
"""
import gzip
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("check-schema: Python's jsonschema is missing; install it with: pip install jsonschema")

if len(sys.argv) != 3:
    sys.exit(__doc__)

schema = json.loads(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def definition(name):
    """A validator for one of the document's definitions, its references resolved in the document."""
    document = {key: value for key, value in schema.items() if key != "oneOf"}
    return jsonschema.Draft202012Validator(document | {"$ref": f"#/$defs/{name}"})


root = pathlib.Path(sys.argv[2])
files = [(path, validator) for path in [root / "manifest.json"] + sorted(root.rglob("*.json.gz"))]
index = [(root / "index.json", "SnapshotIndex"), (root / "index" / "images.json", "SnapshotImageList")]
files += [(path, definition(name)) for path, name in index if path.exists()]
failures = 0
for path, checker in files:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    errors = sorted(checker.iter_errors(json.loads(raw)), key=lambda e: list(e.absolute_path))
    for error in errors[:3]:
        where = "/".join(str(p) for p in error.absolute_path) or "(document)"
        print(f"{path}: {where}: {error.message[:300]}", file=sys.stderr)
    failures += bool(errors)
if failures:
    sys.exit(f"check-schema: {failures} of {len(files)} files in {root} do not match {sys.argv[1]}")
print(f"check-schema: {len(files)} files in {root} match {sys.argv[1]}")
