/// Polls `condition` every 2 ms until it holds or `timeout` passes, for the package's own tests:
/// generous, because tests run in parallel on 2 busy cores, and bounded, so a test never hangs.
@_spi(CatalogTools) public nonisolated(nonsending) func eventually(
    timeout: Duration = .seconds(60), _ condition: () -> Bool
) async {
    let deadline = ContinuousClock.now + timeout
    while !condition(), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(2))
    }
}
