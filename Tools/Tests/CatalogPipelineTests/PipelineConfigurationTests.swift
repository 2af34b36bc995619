@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

@Suite struct PipelineConfigurationTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func load(_ json: String) throws(PipelineError) -> PipelineConfiguration {
        let url = directory.child("catalog.json")
        try! Data(json.utf8).write(to: url)
        return try PipelineConfiguration.load(from: url)
    }

    @Test(arguments: [
        (#"{"editons": ["en-iPhone"]}"#, "editons", "editions"),
        (#"{"pageSize": 10, "maxPagePerCategory": 3}"#, "maxPagePerCategory", "maxPagesPerCategory"),
        (#"{"limits": {"maxFeedByte": 5}}"#, "limits.maxFeedByte", "maxFeedBytes"),
        (#"{"snapshotLimits": {"maxFileCounts": 5}}"#, "snapshotLimits.maxFileCounts", "maxFileCount"),
    ])
    func refusesAnUnknownKeyNamingTheNearestKnownOne(json: String, key: String, suggestion: String) {
        // Given a configuration with a mistyped key, when it is loaded, then the error names both keys
        let error = #expect(throws: PipelineError.self) { try load(json) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.hasPrefix("\(key): unknown key (did you mean '\(suggestion)'?)") == true)
        #expect(error?.file?.hasSuffix("catalog.json") == true)
    }

    @Test func keysLeftOutKeepTheirDefaults() throws {
        let configuration = try load(#"{"pageSize": 20, "snapshotLimits": {"maxFileCount": 50}}"#)
        #expect(configuration.pageSize == 20)
        #expect(configuration.maxPagesPerCategory == PipelineConfiguration.default.maxPagesPerCategory)
        #expect(configuration.snapshotLimits.maxFileCount == 50)
        #expect(configuration.snapshotLimits.maxManifestBytes == SnapshotLimits.default.maxManifestBytes)
    }

    @Test(arguments: [
        #"{"snapshotLimits": {"maxFileBytes": -1}}"#, #"{"snapshotLimits": {"maxManifestBytes": 9223372036854775807}}"#,
        #"{"limits": {"maxFeedBytes": 0}}"#,
    ])
    func refusesCapsOutOfRange(json: String) {
        let error = #expect(throws: PipelineError.self) { try load(json) }
        #expect(error?.code == .invalidConfiguration)
    }
}
