import AsyncHTTPClient
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Testing

/// The `/ota` routes over real HTTP: a conditional manifest, immutable files named by their hash,
/// nothing else, and switching sets at run time.
@Suite(.timeLimit(.minutes(5)))
struct PublishedSetRoutesTests {
    let simulatorTests = CatalogSimulatorTests()
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A set directory holding `manifest` and one file, named by its SHA-256.
    func makeSet(_ name: String, manifest: String, file: Data) throws -> (URL, String) {
        let set = directory.child(name)
        let hash = FileNaming.hexSHA256(file)
        try FileManager.default.createDirectory(
            at: set.appendingPathComponent("files"), withIntermediateDirectories: true)
        try Data(manifest.utf8).write(to: set.appendingPathComponent("manifest.json"))
        try file.write(to: set.appendingPathComponent("files/\(hash)"))
        return (set, hash)
    }

    @Test func servesAConditionalManifestAndImmutableFilesThenSwitchesSets() async throws {
        try await simulatorTests.withSimulator { simulator, base in
            let (first, hash) = try makeSet("v1", manifest: #"{"version":1}"#, file: Data("page bytes".utf8))
            let (second, _) = try makeSet("v2", manifest: #"{"version":2}"#, file: Data("other".utf8))
            let manifestURL = base.appendingPathComponent("ota/manifest.json")
            // Given no set: nothing is served
            #expect(try await simulatorTests.get(manifestURL).status == 404)
            // When the first set is served
            simulator.servePublishedSet(at: first)
            let manifest = try await simulatorTests.get(manifestURL)
            // Then its manifest comes with an ETag and no-cache, and a matching ETag is a 304
            #expect(manifest.status == 200)
            #expect(String(decoding: manifest.body, as: UTF8.self) == #"{"version":1}"#)
            #expect(manifest.headers["Cache-Control"].first == "no-cache")
            let etag = try #require(manifest.headers["ETag"].first)
            #expect(try await simulatorTests.get(manifestURL, headers: [("If-None-Match", etag)]).status == 304)
            // And a file named by its hash is immutable; other names are not files
            let file = try await simulatorTests.get(base.appendingPathComponent("ota/files/\(hash)"))
            #expect(file.status == 200 && file.body == Data("page bytes".utf8))
            #expect(file.headers["Cache-Control"].first?.contains("immutable") == true)
            for name in [String(repeating: "0", count: 64), hash.uppercased(), "..%2F..%2Fmanifest.json", "abc"] {
                let answer = try await simulatorTests.get(URL(string: base.absoluteString + "/ota/files/" + name)!)
                #expect(answer.status == 404, "\(name)")
            }
            // When the admin route switches to the second set
            var request = HTTPClientRequest(url: base.absoluteString + "/_admin/published")
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: #"{"directory": "\#(second.path)"}"#))
            #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(30)).status == .noContent)
            // Then the manifest is the second's, under a new ETag
            let switched = try await simulatorTests.get(manifestURL, headers: [("If-None-Match", etag)])
            #expect(switched.status == 200)
            #expect(String(decoding: switched.body, as: UTF8.self) == #"{"version":2}"#)
            #expect(simulator.publishedStatistics().notModified == 1)
        }
    }
}
