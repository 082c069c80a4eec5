import Foundation

// Where a static binary's size goes, by module: the sizes `nm -S` gives its defined symbols
// (code and data, not DWARF), so that the bench's history says which module a growth came from.
extension WholeProcessBenchmark {
  /// The modules a breakdown names; the rest of the binary (the standard library, Foundation,
  /// the C library) is the hello's too.
  static let libraryModules = ["LaunchProtection", "Failpoints", "CCrashCapture"]

  /// Bytes of defined symbols per module of `libraryModules` in `binary`: Swift symbols by the
  /// module their mangled name starts with (`$s16LaunchProtection…`), and CCrashCapture's C
  /// functions by their `lcc_` prefix.
  static func symbolBytes(_ binary: String) throws -> [String: Int] {
    let swiftPrefixes = libraryModules.map { ("$s\($0.utf8.count)\($0)", $0) }
    var bytes: [String: Int] = [:]
    for line in try run(["nm", "-S", "--defined-only", binary]).split(separator: "\n") {
      // address, size, kind, name; a symbol without a size has three fields.
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count == 4, let size = Int(fields[1], radix: 16) else { continue }
      let name = fields[3]
      if let module = swiftPrefixes.first(where: { name.hasPrefix($0.0) })?.1 {
        bytes[module, default: 0] += size
      } else if name.hasPrefix("lcc_") {
        bytes["CCrashCapture", default: 0] += size
      }
    }
    return bytes
  }

  /// The breakdown as a line: `LaunchProtection 416.2 KiB, Failpoints 48.0 KiB, …`.
  static func describeSymbols(_ bytes: [String: Int]) -> String {
    libraryModules.map { "\($0) " + String(format: "%.1f KiB", Double(bytes[$0] ?? 0) / 1024) }
      .joined(separator: ", ")
  }
}
