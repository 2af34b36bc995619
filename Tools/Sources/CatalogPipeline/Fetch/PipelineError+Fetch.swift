extension PipelineError.Code {
    /// The provider could not be reached, or did not answer in full and in time, after every retry
    /// (connection refused, timeouts, connections cut short).
    public static let network = PipelineError.Code(rawValue: "network")
    /// The provider answered with an HTTP error status: a `4xx` (never retried), or a `5xx` or
    /// `429` after every retry.
    public static let httpStatus = PipelineError.Code(rawValue: "http-status")
    /// The catalogue changed between the requests of one fetch (a page's `total` differs from its
    /// category's `games.total`); fetching again gets a consistent copy.
    public static let catalogueChanged = PipelineError.Code(rawValue: "catalogue-changed")
    /// The fetch ran past its overall deadline.
    public static let deadlineExceeded = PipelineError.Code(rawValue: "deadline-exceeded")
    /// The fetch was cancelled.
    public static let cancelled = PipelineError.Code(rawValue: "cancelled")
}
