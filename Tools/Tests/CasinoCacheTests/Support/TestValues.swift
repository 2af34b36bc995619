@_spi(CatalogTools) import CasinoCatalog
import Logging

let silentLogger = Logger(label: "cache-tests") { _ in SwiftLogNoOpLogHandler() }
let english = try! Edition(id: "en-iPhone")
