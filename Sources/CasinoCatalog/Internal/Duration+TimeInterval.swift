public import Foundation

extension Duration {
    /// The duration in seconds, as a `TimeInterval`: the one conversion of the runtime, the
    /// pipeline and the testing clock. SPI `Internals`: a helper, not part of the schema's API.
    @_spi(CatalogTools) @inlinable
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
