@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite(.timeLimit(.minutes(2))) struct ImageFetcherTests {
    let directory: TemporaryDirectory
    let simulator: CatalogSimulator
    let pictures: [String: Data]

    init() throws {
        directory = try TemporaryDirectory()
        pictures = Dictionary(
            uniqueKeysWithValues: (1...3).map { ("https://static.example.com/c/\($0).jpg", picture($0)) })
        simulator = CatalogSimulator(
            catalog: SimulatedCatalog(
                editions: [:], images: pictures.mapValues { SimulatedImage(data: $0, contentType: "image/jpeg") }),
            logger: quietLogger)
    }

    /// A fetcher pointed at the simulator for static.example.com, retrying quickly. Its request
    /// timeout is a hang detector: on a busy machine a short one turned slow answers into retries,
    /// and the request counts these tests check saw them.
    func fetcher() throws -> ImageFetcher {
        var configuration = ImageFetcher.Configuration(
            bundling: PipelineConfiguration.ImageBundling(allowedHosts: ["static.example.com"]))
        configuration.hostRewrites = [
            "static.example.com": try #require(simulator.imageBaseURL(for: "static.example.com"))
        ]
        configuration.retry.initialDelay = .milliseconds(10)
        configuration.retry.maxDelay = .milliseconds(20)
        configuration.requestTimeout = .seconds(60)
        configuration.isProgressLineEnabled = false
        return ImageFetcher(configuration: configuration, logger: quietLogger)
    }

    func withSimulator(_ body: () async throws -> Void) async throws {
        _ = try await simulator.start()
        do {
            try await body()
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    @Test func fetchesRealBytesOverLoopbackThenRevalidatesThem() async throws {
        try await withSimulator {
            // When the three images are fetched through the host rewrite
            let output = directory.child("images")
            let first = try await fetcher().fetch(pictures.keys.sorted(), into: output)
            // Then each body is recorded byte for byte, named by its SHA-256, with the claimed type
            #expect(first.fetched == 3 && first.failed == 0)
            let recorded = try RecordedImages(directory: output)
            for (url, data) in pictures {
                #expect(try recorded.body(for: url, maxBytes: 1 << 20)?.get() == data)
                #expect(recorded.index[url]?.contentType == "image/jpeg")
            }
            // When they are fetched again
            let second = try await fetcher().fetch(pictures.keys.sorted(), into: output)
            // Then every request is conditional and answered 304: nothing is downloaded twice
            #expect(second.notModified == 3 && second.fetched == 0)
            #expect(simulator.statistics().statuses["304"] == 3)
        }
    }

    @Test func anHTTPURLIsNeverRequested() async throws {
        try await withSimulator {
            // When an http:// image URL is asked for
            let summary = try await fetcher().fetch(
                ["http://static.example.com/c/1.jpg"], into: directory.child("images"))
            // Then it is refused with a named warning and no request is made
            #expect(summary.failed == 1 && summary.requests == 0)
            #expect(summary.warnings.first?.message.contains("not an https URL") == true)
            #expect(simulator.statistics().requests.isEmpty)
        }
    }

    @Test func a404IsAWarningAndIsNotRetried() async throws {
        try await withSimulator {
            // Given the CDN answers 404 for image 2
            simulator.update { $0.faults = [.init(kind: .status, path: "/c/2.jpg", status: 404)] }
            // When the images are fetched
            let summary = try await fetcher().fetch(pictures.keys.sorted(), into: directory.child("images"))
            // Then image 2 is a warning after one request, and the others are fetched
            #expect(summary.fetched == 2 && summary.failed == 1 && summary.requests == 3)
            let warning = try #require(summary.warnings.first)
            #expect(warning.file.hasSuffix("/c/2.jpg") && warning.message.contains("HTTP 404"))
            #expect(try RecordedImages(directory: directory.child("images")).index.count == 2)
        }
    }

    @Test func aTwoGigabyteBodyIsRefusedUnread() async throws {
        try await withSimulator {
            // Given the CDN announces (and starts sending) a 2 GiB body for image 1
            simulator.update { $0.faults = [.init(kind: .oversized, path: "/c/1.jpg")] }
            // When the images are fetched
            let started = ContinuousClock.now
            let summary = try await fetcher().fetch(pictures.keys.sorted(), into: directory.child("images"))
            // Then it is refused at once, naming the cap, and the rest are fetched
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(summary.failed == 1 && summary.fetched == 2)
            #expect(summary.warnings.first?.message.contains("over bundleImages.maxImageBytes") == true)
            #expect(summary.bytesReceived < 1 << 20)
        }
    }

    @Test func htmlServedAsAnImageIsRecordedButNeverBundled() async throws {
        try await withSimulator {
            // Given the CDN answers a login page with Content-Type image/jpeg for image 3
            simulator.update {
                $0.faults = [.init(kind: .body, path: "/c/3.jpg", body: "<html><body>Sign in</body></html>")]
            }
            // When it is fetched
            let output = directory.child("images")
            _ = try await fetcher().fetch(pictures.keys.sorted(), into: output)
            // Then the body is recorded as served, and sniffing names it HTML, whatever the header said
            let recorded = try RecordedImages(directory: output)
            let body = try #require(
                try recorded.body(for: "https://static.example.com/c/3.jpg", maxBytes: 1 << 20)?.get())
            #expect(recorded.index["https://static.example.com/c/3.jpg"]?.contentType == "image/jpeg")
            guard case .failure(let refusal) = ImageSniffer.sniff(body) else {
                Issue.record("HTML sniffed as an image")
                return
            }
            #expect(refusal.code == "html")
        }
    }

    @Test(arguments: [
        ("https://evil.example.net/c/1.jpg", "not in bundleImages.allowedHosts"),
        ("http://static.example.com/c/1.jpg", "not https"),
    ])
    func aRedirectOutsideTheAllowListIsNotFollowed(location: String, reason: String) async throws {
        try await withSimulator {
            // Given the CDN redirects image 1 elsewhere
            simulator.update { $0.faults = [.init(kind: .redirect, path: "/c/1.jpg", body: location)] }
            // When it is fetched
            let summary = try await fetcher().fetch(
                ["https://static.example.com/c/1.jpg"], into: directory.child("images"))
            // Then the redirect is refused, naming why, after the one request
            #expect(summary.failed == 1 && summary.requests == 1)
            #expect(summary.warnings.first?.message.contains(reason) == true)
        }
    }

    @Test func aRedirectWithinTheOriginIsFollowed() async throws {
        try await withSimulator {
            // Given the CDN redirects image 1 to image 2 on the same server
            simulator.update {
                $0.faults = [.init(kind: .redirect, path: "/c/1.jpg", body: "/images/static.example.com/c/2.jpg")]
            }
            // When image 1 is fetched
            let output = directory.child("images")
            let summary = try await fetcher().fetch(["https://static.example.com/c/1.jpg"], into: output)
            // Then it is recorded with image 2's bytes, after two requests
            #expect(summary.fetched == 1 && summary.requests == 2)
            let body = try RecordedImages(directory: output).body(
                for: "https://static.example.com/c/1.jpg", maxBytes: 1 << 20)
            #expect(try body?.get() == pictures["https://static.example.com/c/2.jpg"])
        }
    }
}
