@_spi(CatalogTools) import CasinoCacheTesting
import CatalogSupport
import Foundation
import Testing

@testable import CasinoCache

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// ``DurableStore`` on real files in a fresh directory: what it saves reads back after a relaunch,
/// saves coalesce, a kill's leftovers are swept, hostile files are refused without being followed,
/// a flush ends at its deadline while a write hangs, and concurrent changes end with the last one
/// on disk.
@Suite(.timeLimit(.minutes(2)))
struct DurableStoreTests {
    @Test func whatIsSavedAndRemovedIsWhatANewStoreReadsAndNothingElseIsLeft() async throws {
        // Given a store that saves two files, replaces one and removes another
        let directory = try TemporaryDirectory()
        let (store, failures) = durableStore(directory)
        store.save(Data("one".utf8), as: "a")
        store.save(Data("two".utf8), as: "b")
        store.save(Data("three".utf8), as: "c")
        store.save(Data("two, again".utf8), as: "b")
        store.remove("c")
        store.remove("never saved")

        // When its writes have landed and another store reads the directory (a relaunch)
        await store.flush()
        let (relaunched, _) = durableStore(directory)

        // Then it reads the last bytes of each name, and the directory holds those files only
        #expect(try relaunched.load("a", limit: 64) == Data("one".utf8))
        #expect(try relaunched.load("b", limit: 64) == Data("two, again".utf8))
        #expect(try relaunched.load("c", limit: 64) == nil)
        #expect(try directoryNames(directory) == ["a", "b"])
        #expect(failures.withLock { $0 }.isEmpty)
    }

    @Test func savesOfANameBeforeTheWriterGetsToItAreEncodedAndWrittenOnceAsTheLast() async throws {
        // Given a store whose writer is held, as a disk that hangs holds it
        let directory = try TemporaryDirectory()
        let (store, _) = durableStore(directory)
        let release = store.holdQueue()
        defer { release() }
        let encoded = Locked<[Int]>([])

        // When one name is saved five times, and another saved then removed
        for version in 1...5 {
            store.save(as: "a") {
                encoded.withLock { $0.append(version) }
                return Data("version \(version)".utf8)
            }
        }
        store.save(Data("gone".utf8), as: "b")
        store.remove("b")

        // Then, while held, a load answers the last change, and nothing is on disk yet
        #expect(try store.load("a", limit: 64) == Data("version 5".utf8))
        #expect(try store.load("b", limit: 64) == nil)
        #expect(try directoryNames(directory).isEmpty)
        // And once released, only the last save was encoded on the writer (the load above made it once)
        encoded.withLock { $0.removeAll() }
        release()
        await store.flush()
        #expect(encoded.withLock { $0 } == [5])
        #expect(try durableStore(directory).store.load("a", limit: 64) == Data("version 5".utf8))
        #expect(try directoryNames(directory) == ["a"])
    }

    @Test func aKillsLeftoverTemporaryFilesAreNeverReadAndAreSweptBeforeTheFirstWrite() async throws {
        // Given a saved file, and what kills during writes left beside it: a temporary file of that
        // name with half the new bytes, and one named as an earlier version named them; and files
        // this store does not write: another owner's temporary, a foreign file
        let directory = try TemporaryDirectory()
        try directory.write(Data("old".utf8), to: "a")
        let leftovers = [".test-a-\(UUID().uuidString).tmp", ".test-\(UUID().uuidString).tmp"]
        for name in leftovers { try directory.write(Data("ne".utf8), to: name) }
        let foreign = [
            ".test-other-\(UUID().uuidString).tmp", ".test-\(UUID().uuidString)-7.tmp", ".test-a-partial.tmp", "notes",
        ]
        for name in foreign { try directory.write(Data("theirs".utf8), to: name) }
        let (store, _) = durableStore(directory, keeps: { ["a", "b", ""].contains($0) })

        // When it reads, then saves another name
        let read = try store.load("a", limit: 64)
        store.save(Data("new".utf8), as: "b")
        await store.flush()

        // Then the read was the old file, whole; the leftovers are gone and the others stay
        #expect(read == Data("old".utf8))
        #expect(try directoryNames(directory) == Set(["a", "b"] + foreign))
    }

    enum Hostile: String, CaseIterable, Sendable {
        case link, directory, oversized, fifo
    }

    @Test(arguments: Hostile.allCases)
    func aHostileFileIsRefusedNotFollowedNotDeletedAndASaveReplacesWhatARenameCan(_ hostile: Hostile) async throws {
        // Given, where the store's file "a" goes, a hostile file: a link to a good file elsewhere, a
        // directory, a file one byte over the read's limit, a FIFO no writer opens
        let directory = try TemporaryDirectory()
        let target = try directory.write(Data("good".utf8), to: "elsewhere")
        let path = directory.child("a").path
        switch hostile {
        case .link: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target.path)
        case .directory: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .oversized: try directory.write(Data(repeating: 0x61, count: 17), to: "a")
        case .fifo: #expect(mkfifo(path, 0o600) == 0)
        }
        let (store, failures) = durableStore(directory)

        // When it is read with a limit of 16 bytes
        // Then the read fails without blocking, and the file is left as it was
        #expect(throws: DurableStore.Failure.self) { try store.load("a", limit: 16) }
        #expect(FileManager.default.fileExists(atPath: path))
        if hostile == .oversized {
            #expect(try store.load("a", limit: 17)?.count == 17)  // at the limit, it is read
        }

        // And a save replaces it (a link is replaced, never written through), but for a directory,
        // which a rename cannot replace: that save fails, is reported, and leaves no temporary file
        store.save(Data("saved".utf8), as: "a")
        await store.flush()
        #expect(try Data(contentsOf: target) == Data("good".utf8))
        if hostile == .directory {
            #expect(failures.withLock { $0 }.map(\.name) == ["a"])
            #expect(try directoryNames(directory) == ["a", "elsewhere"])
        } else {
            #expect(try store.load("a", limit: 16) == Data("saved".utf8))
            #expect(failures.withLock { $0 }.isEmpty)
        }
    }

    @Test func aFlushWaitsAtMostItsLimitWhileAWriteHangsAndAnUnboundedOneEndsOnceReleased() async throws {
        // Given a store whose writer hangs, with a save queued behind it
        let directory = try TemporaryDirectory()
        let (store, _) = durableStore(directory)
        let release = store.holdQueue()
        defer { release() }
        store.save(Data("late".utf8), as: "a")

        // When a flush waits at most 50 ms (watched from here, so that one that would wait for the
        // writer fails this test instead of hanging it)
        let start = ContinuousClock.now
        let ended = Locked<(landed: Bool, after: Duration)?>(nil)
        let bounded = Task {
            let landed = await store.flush(within: .milliseconds(50))
            ended.withLock { $0 = (landed, ContinuousClock.now - start) }
        }
        await eventually(timeout: .seconds(30)) { ended.withLock { $0 } != nil }

        // Then it ends near its limit, saying the write has not landed, and it has not
        let outcome = try #require(ended.withLock { $0 }, "the flush waited for the hung writer")
        #expect(!outcome.landed && outcome.after >= .milliseconds(50))
        #expect(try directoryNames(directory).isEmpty)
        await bounded.value
        // And a flush without a limit waits for the writer; once released, both kinds report it landed
        let unbounded = Task { await store.flush() }
        try await Task.sleep(for: .milliseconds(20))
        #expect(try directoryNames(directory).isEmpty)
        release()
        await unbounded.value
        #expect(await store.flush(within: .seconds(60)))
        #expect(try durableStore(directory).store.load("a", limit: 64) == Data("late".utf8))
    }

    @Test func aRefusedFileIsDiscardedUnlessAChangeIsOnItsWayAndRemoveAllLeavesForeignFiles() async throws {
        // Given a store's files, one of them refused while a save of it is queued, and a foreign file
        let directory = try TemporaryDirectory()
        let (store, _) = durableStore(directory)
        for name in ["a", "b", "notes"] { try directory.write(Data("bad".utf8), to: name) }
        let release = store.holdQueue()
        store.save(Data("good".utf8), as: "a")

        // When both are discarded
        store.discard("a")
        store.discard("b")
        release()
        await store.flush()

        // Then the one with a save on its way holds the save, the other is gone
        #expect(try directoryNames(directory) == ["a", "notes"])
        #expect(try store.load("a", limit: 64) == Data("good".utf8))
        // And removing all deletes the store's files and a leftover of one, and only those
        try directory.write(Data("ne".utf8), to: ".test-b-\(UUID().uuidString).tmp")
        store.removeAll()
        await store.flush()
        #expect(try directoryNames(directory) == ["notes"])
    }

    @Test func concurrentSavesRemovesFlushesLoadsAndHangsEndWithTheLastChangeOfEachNameOnDisk() async throws {
        // Given a store, three names and a record of the last change of each: the test orders the
        // saves and removes (so it knows the last) while the writer, flushes, loads, deadlines and
        // hangs race them
        let directory = try TemporaryDirectory()
        let (store, failures) = durableStore(directory)
        let names = ["a", "b", "c"]
        let record = Locked<(counter: Int, last: [String: Data?], saved: Set<Data>)>((0, [:], []))
        var random = SplitMix64(seed: 4242)
        for round in 0..<200 {
            // When four tasks each run six random operations
            let seeds = (0..<4).map { _ in random.next() }
            await withTaskGroup(of: Void.self) { group in
                for seed in seeds {
                    group.addTask {
                        var random = SplitMix64(seed: seed)
                        for _ in 0..<6 {
                            let name = names.randomElement(using: &random)!
                            switch Int.random(in: 0..<8, using: &random) {
                            case 0..<3:
                                let padding = Int.random(in: 0..<4096, using: &random)
                                record.withLock { record in
                                    record.counter += 1
                                    var data = Data("\(name) \(record.counter) ".utf8)
                                    data.append(Data(repeating: 0x2E, count: padding))
                                    record.last[name] = .some(data)
                                    record.saved.insert(data)
                                    store.save(data, as: name)
                                }
                            case 3:
                                record.withLock { record in
                                    record.last[name] = .some(nil)
                                    store.remove(name)
                                }
                            case 4:
                                await store.flush()
                            case 5:
                                _ = await store.flush(within: .microseconds(Int.random(in: 0...2000, using: &random)))
                            case 6:
                                // A read sees a whole file of this name, or none, never half of one
                                do {
                                    if let read = try store.load(name, limit: 1 << 20) {
                                        #expect(record.withLock { $0.saved.contains(read) }, "round \(round): \(name)")
                                    }
                                } catch {
                                    Issue.record("round \(round): \(name): \(error)")
                                }
                            default:
                                let release = store.holdQueue()
                                try? await Task.sleep(for: .microseconds(Int.random(in: 0...500, using: &random)))
                                release()
                            }
                        }
                    }
                }
            }
            // Then, once flushed, this store and a relaunched one read each name's last change
            await store.flush()
            let last = record.withLock { $0.last }
            let relaunched = durableStore(directory).store
            for name in names {
                let expected = last[name] ?? nil
                #expect(try store.load(name, limit: 1 << 20) == expected, "round \(round): \(name)")
                #expect(try relaunched.load(name, limit: 1 << 20) == expected, "round \(round): \(name), relaunched")
            }
            // And the directory holds exactly the names last saved, no temporary file
            #expect(try directoryNames(directory) == Set(names.filter { (last[$0] ?? nil) != nil }), "round \(round)")
        }
        #expect(failures.withLock { $0 }.isEmpty)
    }
}

/// A store over `directory` with the temporary prefix `.test-`, keeping the names `keeps` accepts
/// (one letter by default), and the failures it reported.
private func durableStore(
    _ directory: TemporaryDirectory, keeps: @escaping @Sendable (String) -> Bool = { $0.count == 1 }
) -> (store: DurableStore, failures: Locked<[(name: String, failure: DurableStore.Failure)]>) {
    let failures = Locked<[(name: String, failure: DurableStore.Failure)]>([])
    let store = DurableStore(
        directory: directory.url, label: "DurableStoreTests", temporaryPrefix: ".test-", keeps: keeps,
        failed: { name, failure in failures.withLock { $0.append((name, failure)) } })
    return (store, failures)
}

private func directoryNames(_ directory: TemporaryDirectory) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
}
