// Combine's API on Linux: OpenCombine's, so the runtime's `#if canImport(Combine)` branches type-check
// here against it (make apple-check).
@_exported import OpenCombine
