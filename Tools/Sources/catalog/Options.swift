import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging

/// Writes a line to standard output at once (unbuffered: a script or a test may act on it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Flags every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log progress and repairs (debug level).")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Print errors only.")
    var quiet = false

    /// A progress line for work over a second, on a terminal and unless `--quiet`; the caller ends
    /// it with `finish()`.
    func progressLine(label: String, unit: String) -> ProgressLine {
        ProgressLine(label: label, unit: unit, isEnabled: ProgressLine.isTerminal && !quiet)
    }

    /// A logger writing to standard error at the chosen level.
    func makeLogger() -> Logger {
        let level: Logger.Level = verbose ? .debug : quiet ? .error : .info
        var logger = Logger(label: "catalog") { _ in ConsoleLogHandler(level: level) }
        logger.logLevel = level
        return logger
    }
}

/// Where the catalogue comes from and how it is cut.
struct SourceOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "A recorded provider directory, an XML feed file, or an http(s) base URL (default: data/provider).")
    var source: String?

    /// `--source`, else the embedded recording.
    var sourcePath: String { source ?? "data/provider" }

    @Option(name: .long, help: "The kind of source: auto, recorded, xml or http.")
    var kind = "auto"

    @Option(name: .long, help: "A pipeline configuration JSON file (editions, page size, caps).")
    var config: String?

    @Option(
        name: .long,
        help: "Seconds since 1970 to stamp as generatedAt (default: $SOURCE_DATE_EPOCH, else the source's fetch time).")
    var sourceDateEpoch: Int?

    @Option(
        name: .long,
        help: "Where an http(s) source is fetched to before it is read (replaced only by a complete fetch).")
    var fetchDir = ".catalog/fetched"

    func validate() throws {
        guard kind == "auto" || SourceKind(rawValue: kind) != nil else {
            throw ValidationError("--kind must be auto, recorded, xml or http, got '\(kind)'")
        }
    }

    func configuration() throws(PipelineError) -> PipelineConfiguration {
        guard let config else { return .default }
        return try PipelineConfiguration.load(from: URL(fileURLWithPath: config))
    }

    /// Opens the source; an http(s) source is first fetched into `--fetch-dir` with
    /// `HTTPFetcher`, then read as the recording it is.
    func openSource(
        _ configuration: PipelineConfiguration, logger: Logger
    ) async throws(PipelineError) -> any CatalogSource {
        let source = sourcePath
        let sourceKind = SourceKind(rawValue: kind) ?? SourceKind.detect(source)
        guard sourceKind == .http else { return try sourceKind.open(source, configuration: configuration) }
        let fetcher = HTTPFetcher(
            configuration: try fetchConfiguration(baseURL: source, pipeline: configuration), logger: logger)
        let directory = URL(fileURLWithPath: fetchDir)
        _ = try await fetcher.fetch(into: directory)
        return try SourceKind.recorded.open(fetchDir, configuration: configuration)
    }

    /// `--source-date-epoch`, else `SOURCE_DATE_EPOCH`, else `nil`.
    func generatedAt() throws -> Date? {
        if let sourceDateEpoch { return Date(timeIntervalSince1970: TimeInterval(sourceDateEpoch)) }
        guard let text = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], !text.isEmpty else { return nil }
        guard let seconds = Int(text), seconds >= 0 else {
            throw ValidationError("SOURCE_DATE_EPOCH must be a non-negative integer, got '\(text)'")
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Reads and normalizes the source, logging every skipped record as a warning.
    /// Normalizes the source into `sink` (a few categories at a time) and logs what was skipped.
    func normalize(into sink: inout some CatalogSink, logger: Logger, progress: ProgressLine) async throws {
        let configuration = try configuration()
        let source = try await openSource(configuration, logger: logger)
        defer { progress.finish() }
        let summary = try Normalizer(configuration: configuration, logger: logger, progress: progress).normalize(
            source, generatedAt: try generatedAt(), into: &sink)
        for warning in summary.warnings {
            logger.warning("\(warning)")
        }
    }
}

/// Runs a subcommand body, turning pipeline errors into a clear message and an exit status.
func reportingErrors<T>(_ logger: Logger, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as PipelineError {
        logger.error("\(error)")
        throw ExitCode(exitStatus(for: error.code))
    }
}

/// Runs an async subcommand body, turning pipeline errors into a clear message and an exit status.
func reportingErrors<T>(_ logger: Logger, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as PipelineError {
        logger.error("\(error)")
        throw ExitCode(exitStatus(for: error.code))
    }
}

/// The fetcher's configuration for `baseURL`, cut like the pipeline's (editions, page size,
/// pages per category).
func fetchConfiguration(
    baseURL: String, pipeline: PipelineConfiguration
) throws(PipelineError) -> HTTPFetcher.Configuration {
    guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
        url.host != nil
    else {
        throw PipelineError(.invalidConfiguration, "the base URL must be an absolute http(s) URL, got '\(baseURL)'")
    }
    let configuration = HTTPFetcher.Configuration(baseURL: url, pipeline: pipeline)
    try configuration.check()
    return configuration
}

func exitStatus(for code: PipelineError.Code) -> Int32 {
    switch code {
    case .validationFailed: 1
    case .malformedInput, .inputTooLarge, .invalidContent: 65
    case .missingInput: 66
    case .io: 74
    case .outputNotReplaceable: 73
    case .invalidConfiguration: 78
    case .unsupportedSource: 64
    case .network: 69
    case .catalogueChanged, .deadlineExceeded: 75
    case .httpStatus: 76
    default: 70
    }
}
