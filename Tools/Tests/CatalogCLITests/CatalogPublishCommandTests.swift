@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
import Testing

/// `catalog keygen` and `catalog publish` as a release engineer runs them.
@Suite(.timeLimit(.minutes(5)))
struct CatalogPublishCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A key pair in `keys/` and a snapshot of the embedded recording in `out/`.
    func prepare() async throws -> (key: URL, out: URL) {
        let keygen = try await CatalogBinary.run(["keygen", "--output", directory.child("keys").path])
        #expect(keygen.status == 0, "\(keygen.standardError)")
        let out = directory.child("out")
        let snapshot = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--out", out.path, "--quiet",
        ])
        #expect(snapshot.status == 0, "\(snapshot.standardError)")
        return (directory.child("keys/catalog-signing.key"), out)
    }

    func publish(
        _ out: URL, key: URL?, _ extra: [String] = [], environment: [String: String] = [:]
    ) async throws -> CatalogBinary.Result {
        var arguments = ["publish", "--from", out.path, "--to", directory.child("published").path]
        if let key { arguments += ["--key-file", key.path] }
        return try await CatalogBinary.run(arguments + extra, environment: environment)
    }

    @Test func keygenWritesAnOwnerOnlyPrivateKeyAndRefusesToOverwriteIt() async throws {
        // Given a new key pair
        let keys = directory.child("keys")
        let first = try await CatalogBinary.run(["keygen", "--output", keys.path])
        let privateKey = keys.appendingPathComponent("catalog-signing.key")
        let before = try Data(contentsOf: privateKey)
        // When keygen runs again into the same directory
        let second = try await CatalogBinary.run(["keygen", "--output", keys.path])
        // Then the private key is mode 0600 with 32 bytes, the public key is beside it, and the second run exits 73
        #expect(first.status == 0, "\(first.standardError)")
        let mode = try #require(
            try FileManager.default.attributesOfItem(atPath: privateKey.path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(
            Data(
                base64Encoded: String(decoding: before, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))?
                .count == 32)
        #expect(FileManager.default.fileExists(atPath: keys.appendingPathComponent("catalog-signing.pub").path))
        #expect(second.status == 73)
        #expect(second.standardError.contains("not replacing"))
        #expect(try Data(contentsOf: privateKey) == before)
    }

    @Test func publishNumbersVersionsUpwardsAndRefusesToGoBack() async throws {
        // Given a key and a snapshot
        let (key, out) = try await prepare()
        // When it is published twice, then with an explicit older version
        let first = try await publish(out, key: key)
        let second = try await publish(out, key: key)
        let backwards = try await publish(out, key: key, ["--set-version", "1"])
        // Then versions 1 and 2 are kept, the files are written once, and going back exits 78
        #expect(first.status == 0, "\(first.standardError)")
        #expect(second.status == 0, "\(second.standardError)")
        let published = directory.child("published")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: published.appendingPathComponent("manifests").path)
                .sorted() == ["1.json", "2.json"])
        #expect(second.standardError.contains("0 files written"))
        #expect(backwards.status == 78)
        #expect(backwards.standardError.contains("versions only go up"))
    }

    @Test func publishReadsTheKeyFromTheEnvironment() async throws {
        let (key, out) = try await prepare()
        let text = try String(contentsOf: key, encoding: .utf8)
        let result = try await publish(out, key: nil, environment: ["CATALOG_SIGNING_KEY": text])
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test func publishWithoutAKeySaysWhereToPutOne() async throws {
        let (_, out) = try await prepare()
        let result = try await publish(out, key: nil)
        #expect(result.status == 78)
        #expect(result.standardError.contains("--key-file") && result.standardError.contains("CATALOG_SIGNING_KEY"))
        #expect(!FileManager.default.fileExists(atPath: directory.child("published").path))
    }

    @Test func publishRefusesAKeyOthersCanRead() async throws {
        let (key, out) = try await prepare()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key.path)
        let result = try await publish(out, key: key)
        #expect(result.status == 78)
        #expect(result.standardError.contains("chmod 600"))
    }

    @Test func publishRefusesASnapshotThatDoesNotValidate() async throws {
        let (key, out) = try await prepare()
        try Data("{}".utf8).write(to: out.appendingPathComponent("manifest.json"))
        let result = try await publish(out, key: key)
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.child("published/manifest.json").path))
    }

    @Test func aRootSignedKeyListNamesTheOnlineKeyThatPublishesAndRefusesOneItDoesNotName() async throws {
        // Given a root key, two online keys, a snapshot, and a list naming only the first online key
        let keys = directory.child("keys")
        for name in ["root", "online-1", "online-2"] {
            let keygen = try await CatalogBinary.run(["keygen", "--output", keys.path, "--name", name])
            #expect(keygen.status == 0, "\(keygen.standardError)")
        }
        let out = directory.child("out")
        #expect(
            try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", out.path, "--quiet"]).status
                == 0)
        let list = directory.child("key-list.json")
        func signKeys(_ version: Int, _ names: [String]) async throws -> CatalogBinary.Result {
            try await CatalogBinary.run(
                [
                    "sign-keys", "--root-key", keys.appendingPathComponent("root.key").path, "--list-version",
                    "\(version)", "--output", list.path,
                ] + names.flatMap { ["--key", keys.appendingPathComponent("\($0).pub").path] })
        }
        let signed = try await signKeys(1, ["online-1"])
        #expect(signed.status == 0, "\(signed.standardError)")
        // When each online key publishes with the list
        let listed = try await publish(
            out, key: keys.appendingPathComponent("online-1.key"), ["--key-list", list.path])
        let unlisted = try await publish(
            out, key: keys.appendingPathComponent("online-2.key"), ["--key-list", list.path])
        // Then the listed key publishes a manifest carrying the list, the other is refused saying what to do
        #expect(listed.status == 0, "\(listed.standardError)")
        let manifest = try String(
            contentsOf: directory.child("published/manifest.json"), encoding: .utf8)
        #expect(manifest.contains("\"keyList\""))
        #expect(unlisted.status != 0)
        #expect(unlisted.standardError.contains("is not on key list version 1"), "\(unlisted.standardError)")
        // And the list is re-signed only upwards: version 1 again is refused, version 2 replaces it
        #expect(try await signKeys(1, ["online-2"]).status != 0)
        let rotated = try await signKeys(2, ["online-1", "online-2"])
        #expect(rotated.status == 0, "\(rotated.standardError)")
        #expect(
            try await publish(out, key: keys.appendingPathComponent("online-2.key"), ["--key-list", list.path]).status
                == 0)
    }
}
