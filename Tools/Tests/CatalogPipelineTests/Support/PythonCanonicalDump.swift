import Foundation

/// Python's compact sorted dump, `json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"),
/// ensure_ascii=False)` in UTF-8, of each file (gzip-inflated when its name ends in `.gz`): the
/// outside reference canonical JSON is held to. `nil` where Python refuses the file.
///
/// Not optional: when `python3` is missing the call throws, so the test fails instead of passing.
enum PythonCanonicalDump {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    static func dumps(of files: [URL]) throws -> [Data?] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + files.map(\.path)
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw Unavailable(description: "cannot run /usr/bin/env python3 (\(error)): install Python 3")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()  // before waiting: the pipe must not fill up
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(description: "python3 failed (\(process.terminationStatus))")
        }
        return try JSONDecoder().decode([String?].self, from: data).map { $0.flatMap { Data(base64Encoded: $0) } }
    }

    /// argv: files. Prints a JSON array: base64 of each dump, or null.
    private static let script = #"""
        import base64, gzip, json, sys
        out = []
        for path in sys.argv[1:]:
            raw = open(path, "rb").read()
            if path.endswith(".gz"):
                raw = gzip.decompress(raw)
            try:
                dump = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                out.append(base64.b64encode(dump.encode("utf-8")).decode("ascii"))
            except Exception:
                out.append(None)
        print(json.dumps(out))
        """#
}
