import Foundation
import Testing

/// A real browser for the HTML `catalog preview` writes: Chromium, headless, run as a child with a
/// deadline (``ChildProcess``).
///
/// Not optional: without Chromium the calls throw, so a test fails saying how to install it (CI's
/// `.ci/run` does) instead of passing without having looked at a page.
enum HeadlessChromium {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// How long one run may take before it is killed.
    static let deadline: Duration = .seconds(60)

    /// `$CHROMIUM`, else the first of `chromium`, `chromium-browser`, `google-chrome` on `PATH`.
    static func executable() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["CHROMIUM"], !given.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: given) else {
                throw Unavailable(description: "CHROMIUM=\(given) is not an executable file")
            }
            return URL(fileURLWithPath: given)
        }
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for directory in directories {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        throw Unavailable(
            description:
                "Chromium is required to check the preview pages in a browser and is not on PATH: "
                + "sudo apt-get install chromium (Debian; .ci/run installs it), or set CHROMIUM to a Chrome or Chromium binary"
        )
    }

    /// The flags every run takes: headless, no sandbox (tests run as root here), no GPU, a profile of
    /// its own (tests run in parallel), nothing fetched in the background, and `budget` milliseconds
    /// of virtual time for the page to load and its script to run.
    static func arguments(profile: URL, budget: Int = 10_000) -> [String] {
        [
            "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--no-first-run",
            "--disable-background-networking", "--disable-extensions", "--virtual-time-budget=\(budget)",
        ]
    }

    /// The page's DOM after `load` and its scripts, as `--dump-dom` serializes it.
    static func dumpDOM(of page: URL, profile: URL) async throws -> String {
        let result = try await run(arguments(profile: profile) + ["--dump-dom", page.absoluteString])
        guard result.status == 0, result.standardOutput.contains("</html>") else {
            throw Unavailable(
                description: "chromium --dump-dom exited \(result.status): \(result.standardError.suffix(2000))")
        }
        return result.standardOutput
    }

    /// A PNG of the page in a `width`×`height` window, written to `png`.
    static func screenshot(of page: URL, to png: URL, profile: URL, width: Int = 1280, height: Int = 2000) async throws
    {
        try? FileManager.default.removeItem(at: png)
        let result = try await run(
            arguments(profile: profile) + [
                "--screenshot=\(png.path)", "--window-size=\(width),\(height)", "--hide-scrollbars",
                page.absoluteString,
            ])
        guard result.status == 0, FileManager.default.fileExists(atPath: png.path) else {
            throw Unavailable(
                description: "chromium --screenshot exited \(result.status): \(result.standardError.suffix(2000))")
        }
    }

    private static func run(_ arguments: [String]) async throws -> ChildProcess.Result {
        let result = try await ChildProcess.run(
            try executable(), arguments, environment: ProcessInfo.processInfo.environment, deadline: deadline)
        try #require(!result.timedOut, "chromium ran past \(deadline) and was killed: \(arguments)")
        return result
    }
}
