@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
import Foundation
@_spi(CatalogTools) import Gzip
import Testing

@_spi(CatalogTools) @testable import CatalogPipeline

/// Canonical JSON held to Python's compact sorted dump, on the embedded data and on the cases
/// where RFC 8785 (and so the snapshot contract) and Python differ.
@Suite(.timeLimit(.minutes(2))) struct CanonicalJSONPythonTests {
    @Test func everySnapshotFileBuiltFromTheDataEqualsPythonsCanonicalDump() throws {
        // Given the snapshot of the embedded recording
        let directory = try TemporaryDirectory()
        let configuration = try PipelineConfiguration.load(
            from: repositoryRoot.appendingPathComponent("data/catalog.json"))
        let manifest = try buildSnapshot(
            from: repositoryRoot.appendingPathComponent("data/provider"), to: directory.child("out"),
            configuration: configuration)
        let files = manifest.files.map { directory.child("out").appendingPathComponent($0.path) }
        // When Python parses and dumps each file
        let dumps = try PythonCanonicalDump.dumps(of: files)
        // Then every file's JSON is byte for byte Python's dump, and canonical
        #expect(files.count > 10)
        for (file, dump) in zip(files, dumps) {
            let json = try Gzip.decompress(Data(contentsOf: file), limit: 1 << 24)
            #expect(dump == json, "\(file.lastPathComponent) differs from Python's dump")
            #expect(throws: Never.self) { try CanonicalJSON.requireCanonical(json) }
        }
    }

    /// Where RFC 8785 and Python's dump agree, and where they do not (`nil`: canonical JSON refuses
    /// the input; Python's column as python3 3.11 writes it).
    @Test(arguments: [
        // Agree: escapes (only `"`, `\` and controls, lowercase hex), U+007F, U+2028/9, `\/`, numbers.
        (
            #"["\u001f\u0000\b\/\"\\","\u007f\u0080\u2028\u2029"]"#,
            #"["\u001f\u0000\b/\"\\","\#u{7F}\#u{80}\#u{2028}\#u{2029}"]"# as String?, nil as String?
        ),
        (
            "[1e21,1e+23,4.50,333333333.33333329,0.9646,-0,9007199254740991]",
            "[1e+21,1e+23,4.5,333333333.3333333,0.9646,0,9007199254740991]", nil
        ),
        (#"{"b":1,"a":{"é":2,"e":3}}"#, #"{"a":{"e":3,"é":2},"b":1}"#, nil),
        // Differ: key order above U+FFFF (UTF-16 code units against code points).
        (#"{"\ufb01":1,"\ud83d\ude00":2}"#, "{\"\u{1F600}\":2,\"\u{FB01}\":1}", "{\"\u{FB01}\":1,\"\u{1F600}\":2}"),
        // Differ: floats (ECMAScript against Python's repr).
        (
            "[1e16,1e-7,0.000001,5.0,-0.0,1.2345678901234568e+20]",
            "[10000000000000000,1e-7,0.000001,5,0,123456789012345680000]",
            "[1e+16,1e-07,1e-06,5.0,-0.0,1.2345678901234568e+20]"
        ),
        // Differ: Python keeps integers exactly and duplicate keys (the last), and text as given.
        ("[123456789012345678901]", nil, "[123456789012345678901]"),
        (#"{"a":1,"a":2}"#, nil, #"{"a":2}"#),
        (#"["A\u030a"]"#, nil, "[\"A\u{30A}\"]"),
    ])
    func agreesWithPythonExceptWhereRFC8785Differs(input: String, canonical: String?, python: String?) throws {
        // Given a JSON text in a file
        let directory = try TemporaryDirectory()
        let file = directory.child("case.json")
        try Data(input.utf8).write(to: file)
        // When both write it canonically
        let ours = try? CanonicalJSON.canonicalized(Data(input.utf8))
        let theirs = try #require(try PythonCanonicalDump.dumps(of: [file]).first).map {
            String(decoding: $0, as: UTF8.self)
        }
        // Then ours is RFC 8785's, and Python's is the same unless the case differs
        #expect(ours.map { String(decoding: $0, as: UTF8.self) } == canonical)
        #expect(theirs == (python ?? canonical))
    }
}
