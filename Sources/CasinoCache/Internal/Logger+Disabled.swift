public import Logging

extension Logger {
    /// A logger that discards everything: the default of every initializer that takes a logger, so
    /// an app need not import Logging to start.
    @usableFromInline static let casinoCacheDisabled = Logger(label: "CasinoCache") { _ in SwiftLogNoOpLogHandler() }
}
