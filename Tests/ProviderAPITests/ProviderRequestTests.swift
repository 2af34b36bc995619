@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

@_spi(CatalogTools) @testable import ProviderAPI

@Suite struct ProviderRequestTests {
    let edition = try! Edition(id: "en-iPhone")
    let base = URL(string: "https://api.example.com/prod/")!

    @Test func buildsTheProviderQueriesOfTheAPI() {
        #expect(
            ProviderRequest.categories(edition).url(relativeTo: base).absoluteString
                == "https://api.example.com/prod/v1/casino/categories?language=en&platform=iPhone"
                + "&pagination=offset=0,games(offset=0,limit=0)&fields=id,name,href,games")
        #expect(
            ProviderRequest.gamesPage(edition, categoryId: "VIDEOSLOTS", offset: 10, limit: 10).url(relativeTo: base)
                .absoluteString
                == "https://api.example.com/prod/v1/casino/games?language=en&platform=iPhone"
                + "&pagination=offset=10,limit=10&expand=vendor&filter=categories(id=VIDEOSLOTS)&sortedField=popularity"
        )
    }

    @Test(arguments: ["VIDEOSLOTS", "a&b=c", "x)y", "../../etc/passwd", "🎰 Slots", "100%", "a,b(c)"])
    func parsesWhatItBuildsForAnyCategoryID(categoryId: String) throws {
        // Given a request URL for a hostile category id
        let request = ProviderRequest.gamesPage(edition, categoryId: categoryId, offset: 20, limit: 10)
        let url = request.url(relativeTo: base)
        // When a server splits and percent-decodes its query
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        let parameters = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        // Then it parses back to the same request, and the id did not leak into other parameters
        #expect(try ProviderRequest(path: request.path, parameters: parameters) == request)
        #expect(parameters.count == 6)
    }

    @Test(arguments: [
        ("/v1/casino/games", ["language": "en", "platform": "iPhone", "pagination": "offset=0,limit=10"]),
        (
            "/v1/casino/games",
            ["language": "en", "platform": "iPhone", "filter": "categories(id=X)", "pagination": "offset=-1,limit=10"]
        ),
        // `offset + limit` would overflow in whoever serves it (the simulator trapped on this).
        (
            "/v1/casino/games",
            [
                "language": "en", "platform": "iPhone", "filter": "categories(id=X)",
                "pagination": "offset=9223372036854775807,limit=10",
            ]
        ),
        (
            "/v1/casino/games",
            [
                "language": "en", "platform": "iPhone", "filter": "categories(id=X)",
                "pagination": "offset=0,limit=9223372036854775807",
            ]
        ),
        ("/v1/casino/games", ["language": "en", "platform": "Windows", "filter": "categories(id=X)"]),
        ("/v1/casino/other", ["language": "en", "platform": "iPhone"]),
        ("/v1/casino/categories", ["platform": "iPhone"]),
    ])
    func refusesMalformedRequests(path: String, parameters: [String: String]) {
        #expect(throws: ProviderRequest.ParseError.self) { try ProviderRequest(path: path, parameters: parameters) }
    }
}

@Suite struct RetryAfterTests {
    let now = Date(timeIntervalSince1970: 1_795_168_800)

    @Test(arguments: [
        ("120", 120.0), ("0", 0), ("9223372036854775807", RetryAfter.maxSeconds),
        ("99999999999999999999999", RetryAfter.maxSeconds), ("Fri, 20 Nov 2026 10:02:00 GMT", 120),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0), ("Fri, 31 Dec 9999 23:59:59 GMT", RetryAfter.maxSeconds),
        ("Sat, 21 Nov 2026 09:59:59 GMT", 86_399), ("Sun, 29 Feb 2032 00:00:00 GMT", RetryAfter.maxSeconds),
    ])
    func readsDelaySecondsAndDatesWithinADay(value: String, expected: TimeInterval) {
        #expect(RetryAfter.seconds(from: value, now: now) == expected)
    }

    @Test(arguments: [
        "", "-5", "soon", "1.5",
        // Found by fuzz-provider: Foundation's DateFormatter trapped on this (m + U+074A).
        "m\u{74A}", "Fri, 20 Nov 2026 10:02:00 G\u{301}MT", "Fri, 20 Nov 2026 10:02:00 UTC",
        "Fri, 31 Feb 2026 10:02:00 GMT", "Fri, 20 Nov 2026 24:00:00 GMT", "Fri, 20 Nov 2026 10:02 GMT",
        "Fri, 20 Now 2026 10:02:00 GMT", "Fri 20 Nov 2026 10:02:00 GMTX", "Fri, 2a Nov 2026 10:02:00 GMT",
    ])
    func ignoresWhatIsNeither(value: String) {
        #expect(RetryAfter.seconds(from: value, now: now) == nil)
    }

    @Test func readsEveryDayOfALeapYearAsFoundationDoes() {
        // Given every midnight of 2028 (and the seconds before it), as Foundation formats them
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let start = Date(timeIntervalSince1970: 1_830_297_600)  // 2028-01-01
        for day in 0..<366 {
            let date = start.addingTimeInterval(TimeInterval(day * 86_400 + 86_399))
            // When the byte-level parser reads the text, then it gives back the same instant
            #expect(RetryAfter.httpDate(formatter.string(from: date)) == date)
        }
    }
}
