import Foundation

/// Inputs the fuzzers (Fuzz/, CI/fuzz) found crashing, kept in Fuzz/Regressions/<target>/ and
/// replayed by the tests of what they crashed: each must now be an error or a value, never a crash.
enum FuzzReproducers {
  /// Fuzz/Regressions, found from this file's path.
  static let regressions = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fuzz/Regressions")

  /// The reproducer `name` of fuzz target `target`.
  static func one(_ target: String, _ name: String) throws -> Data {
    try Data(contentsOf: regressions.appendingPathComponent(target).appendingPathComponent(name))
  }

  /// Every reproducer of fuzz target `target`, by name.
  static func all(_ target: String) -> [(name: String, data: Data)] {
    let directory = regressions.appendingPathComponent(target)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted().compactMap { name in
      (try? Data(contentsOf: directory.appendingPathComponent(name))).map { (name, $0) }
    }
  }
}
