@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
@_spi(CatalogTools) import Gzip
import Testing

@Suite struct GzipTests {
    let json = Data(String(repeating: #"{"id":"34795","name":"Lara Jones is Cleopatra"},"#, count: 200).utf8)

    @Test func roundTripsData() throws {
        // Given compressed JSON
        let packed = try Gzip.compress(json)
        // When it is decompressed
        let unpacked = try Gzip.decompress(packed, limit: 1 << 20, expectedSize: json.count)
        // Then the bytes are the original ones, and smaller on the way
        #expect(unpacked == json)
        #expect(packed.count < json.count / 10)
    }

    @Test func refusesANegativeLimitOrExpectedSizeInsteadOfTrapping() throws {
        // Given valid gzip and the sizes a hostile manifest could hand over
        let packed = try Gzip.compress(json)
        // Then negative values are named errors
        let negativeLimit = #expect(throws: GzipError.self) { try Gzip.decompress(packed, limit: -1) }
        #expect(negativeLimit?.code == .invalidArgument)
        let negativeSize = #expect(throws: GzipError.self) {
            try Gzip.decompress(packed, limit: 1 << 20, expectedSize: -2)
        }
        #expect(negativeSize?.code == .invalidArgument)
    }

    @Test func acceptsALimitOfIntMax() throws {
        // Given a limit of Int.max (once `limit + 1` overflowed) and an expected size of Int.max
        let packed = try Gzip.compress(json)
        // Then the data inflates, and a lying expected size is a mismatch, not a huge allocation
        #expect(try Gzip.decompress(packed, limit: .max) == json)
        let lying = #expect(throws: GzipError.self) { try Gzip.decompress(packed, limit: .max, expectedSize: .max) }
        #expect(lying?.code == .sizeMismatch)
    }

    @Test func roundTripsEmptyInput() throws {
        let packed = try Gzip.compress(Data())
        #expect(try Gzip.decompress(packed, limit: 10) == Data())
    }

    @Test func writesTheSameBytesEveryTimeWithAFixedHeader() throws {
        // When the same input is compressed twice
        let first = try Gzip.compress(json)
        let second = try Gzip.compress(json)
        // Then the bytes are identical, and the header says mtime 0, no name, OS 255
        #expect(first == second)
        #expect(Array(first.prefix(10)) == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 255])
    }

    @Test func producesGzipThatTheGzipToolAccepts() throws {
        // Given a compressed file on disk
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("page.json.gz")
        try Gzip.compress(json).write(to: file)
        // When gzip -t and gzip -dc read it
        let test = try run("/usr/bin/env", ["gzip", "-t", file.path])
        let decompressed = try run("/usr/bin/env", ["gzip", "-dc", file.path])
        // Then both succeed and the content is the original
        #expect(test.status == 0)
        #expect(decompressed.output == json)
    }

    @Test func readsWhatTheGzipToolWrites() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("page.json")
        try json.write(to: file)
        let packed = try run("/usr/bin/env", ["gzip", "-9c", file.path]).output
        #expect(try Gzip.decompress(packed, limit: 1 << 20) == json)
    }

    @Test func rejectsTruncatedInputAtEveryLength() throws {
        let packed = try Gzip.compress(json)
        for length in [1, 2, 10, packed.count / 2, packed.count - 8, packed.count - 1] {
            #expect(throws: GzipError.self, "length \(length)") {
                try Gzip.decompress(packed.prefix(length), limit: 1 << 20)
            }
        }
        let error = try #require(throws: GzipError.self) { try Gzip.decompress(packed.dropLast(4), limit: 1 << 20) }
        #expect(error.code == .truncated)
    }

    @Test func rejectsAFlippedByteInTheData() throws {
        var packed = try Gzip.compress(json)
        packed[packed.count / 2] ^= 0x01
        let error = try #require(throws: GzipError.self) { try Gzip.decompress(packed, limit: 1 << 20) }
        #expect([GzipError.Code.checksumMismatch, .corrupt].contains(error.code))
    }

    @Test func rejectsAWrongCRC() throws {
        var packed = try Gzip.compress(json)
        packed[packed.count - 8] ^= 0xFF
        let error = try #require(throws: GzipError.self) { try Gzip.decompress(packed, limit: 1 << 20) }
        #expect(error.code == .checksumMismatch)
    }

    @Test func rejectsTrailingGarbageAndASecondMember() throws {
        let packed = try Gzip.compress(json)
        for tail in [Data([0]), Data("garbage".utf8), packed] {
            let error = try #require(throws: GzipError.self) { try Gzip.decompress(packed + tail, limit: 1 << 20) }
            #expect(error.code == .trailingData)
        }
    }

    @Test(arguments: [Data(), Data([0x1F]), Data("{\"plain\":\"json\"}".utf8), Data([0x1F, 0x8B, 8])])
    func rejectsInputThatIsNotGzip(input: Data) {
        #expect(throws: GzipError.self) { try Gzip.decompress(input, limit: 1 << 20) }
    }

    @Test func stopsAGzipBombAtTheLimit() throws {
        // Given 64 MiB of zeros compressed to a few KiB
        let bomb = try Gzip.compress(Data(count: 64 << 20))
        #expect(bomb.count < 100_000)
        // When it is decompressed with a 1 MiB limit
        let error = try #require(throws: GzipError.self) { try Gzip.decompress(bomb, limit: 1 << 20) }
        // Then it stops with tooLarge
        #expect(error.code == .tooLarge)
    }

    @Test func rejectsOutputOfAnUnexpectedSize() throws {
        let packed = try Gzip.compress(json)
        let error = try #require(throws: GzipError.self) {
            try Gzip.decompress(packed, limit: 1 << 20, expectedSize: json.count - 1)
        }
        #expect(error.code == .sizeMismatch)
    }
}

func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, output)
}
