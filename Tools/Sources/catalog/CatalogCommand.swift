import ArgumentParser

/// `catalog`: bakes the provider's catalogue into the snapshots an app ships.
@main
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Bake the casino catalogue into versioned, gzip-compressed snapshots.",
        discussion: """
            The usual flow is `make snapshot`, which runs `normalize` then `snapshot`.

            Exit status:
              0   success
              1   the snapshot directory does not validate
              2   the snapshot is valid but older than validate's --max-age
              64  bad arguments
              65  bad input data (malformed JSON or XML, too many invalid records, over a size cap)
              66  input not found
              69  the provider cannot be reached (fetching an http source)
              70  internal error
              73  the output exists and is not ours to replace (a file, or someone else's directory), or is not writable
              74  I/O error
              75  temporary: the catalogue changed while fetching, or the fetch deadline passed; fetch again
              76  the provider answered an error status
              78  bad configuration
            """,
        version: "0.1.0",
        subcommands: [
            NormalizeCommand.self, SnapshotCommand.self, ValidateCommand.self, InspectCommand.self, DiffCommand.self,
            SchemaCommand.self, SampleCommand.self, FetchCommand.self, KeygenCommand.self, SignKeysCommand.self,
            PublishCommand.self,
            UpdateCommand.self, PreviewCommand.self, InspectCacheCommand.self,
        ]
    )
}
