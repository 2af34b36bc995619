import Foundation

/// Validates JSON files with a real, independent validator: Python's `jsonschema` 4.x
/// (`Draft202012Validator`, format assertions off), run as a process.
///
/// Not optional: when `python3` or `jsonschema` is missing the call throws, so the test fails
/// saying how to install it (CI does), instead of passing without having checked anything.
enum PythonJSONSchema {
    /// What the validator said about one file.
    struct Outcome: Decodable, CustomStringConvertible {
        /// One error: where in the instance (`payload/items/0/id`, empty for the document) and why.
        struct Failure: Decodable {
            var path: String
            var message: String
        }

        var file: String
        /// Whether the whole document (its top-level `oneOf`) accepts the file.
        var isDocumentValid: Bool
        /// The errors against the definition asked for, or against the document when none was, with
        /// the errors of each branch of an `anyOf` or `oneOf` that failed.
        var errors: [Failure]

        var description: String {
            "\(file): "
                + (errors.isEmpty ? "valid" : errors.map { "\($0.path): \($0.message)" }.joined(separator: "; "))
        }
    }

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Validates each file (JSON, or gzip-compressed JSON when its name ends in `.gz`) against the
    /// schema document at `schema`, and against its definition `definition` when one is given.
    static func validate(_ files: [URL], against schema: URL, definition: String? = nil) throws -> [Outcome] {
        let scratch = schema.deletingLastPathComponent()
        let errorLog = scratch.appendingPathComponent("jsonschema-\(UUID().uuidString).stderr")
        try Data().write(to: errorLog)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, schema.path, definition ?? ""] + files.map(\.path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        do {
            try process.run()
        } catch {
            throw Unavailable(
                description:
                    "cannot run /usr/bin/env python3 (\(error)): install Python 3, then `pip install jsonschema`")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()  // before waiting: the pipe must not fill up
        process.waitUntilExit()
        let errors = ((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        switch process.terminationStatus {
        case 0:
            return try JSONDecoder().decode([Outcome].self, from: data)
        case 3, 127:
            throw Unavailable(
                description: "python3 with jsonschema 4.x is required: pip install jsonschema (\(errors))")
        default:
            throw Unavailable(description: "the jsonschema run failed (\(process.terminationStatus)): \(errors)")
        }
    }

    /// argv: schema file, definition name or "", instance files. Prints a JSON array of outcomes.
    private static let script = #"""
        import gzip, json, sys
        try:
            from jsonschema import Draft202012Validator
        except ImportError as error:
            sys.stderr.write("jsonschema is missing: pip install jsonschema (%s)\n" % error)
            sys.exit(3)

        schema_path, definition, files = sys.argv[1], sys.argv[2], sys.argv[3:]
        with open(schema_path) as handle:
            document = json.load(handle)
        Draft202012Validator.check_schema(document)
        whole = Draft202012Validator(document)
        if definition:
            if definition not in document["$defs"]:
                sys.exit("no definition %r" % definition)
            target = {key: value for key, value in document.items() if key != "oneOf"}
            target["$ref"] = "#/$defs/" + definition
            checked = Draft202012Validator(target)
        else:
            checked = whole

        outcomes = []
        for path in files:
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rb") as handle:
                instance = json.loads(handle.read().decode("utf-8"))
            errors = []
            pending = list(checked.iter_errors(instance))
            while pending:  # an anyOf's error holds each branch's errors: list those too
                error = pending.pop(0)
                errors.append({"path": "/".join(str(p) for p in error.absolute_path), "message": error.message[:300]})
                pending.extend(error.context or [])
            outcomes.append({
                "file": path,
                "isDocumentValid": whole.is_valid(instance),
                "errors": sorted(errors, key=lambda e: e["path"]),
            })
        json.dump(outcomes, sys.stdout)
        """#
}
