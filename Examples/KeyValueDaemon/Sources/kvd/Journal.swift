import Foundation

/// The append-only journal: one `set <key> <value>` or `del <key>` per line.
enum Journal {
  /// The map the journal describes.
  ///
  /// The bug this example is about: a torn last line (`set key` without its value, left by a
  /// crash mid-append) indexes past the end of `fields` — a Swift trap, at every launch,
  /// until the repair moves the journal aside.
  static func replay(_ text: String) -> [String: String] {
    var values: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
      switch fields[0] {
      case "set": values[fields[1]] = fields[2]
      case "del": values[fields[1]] = nil
      default: continue
      }
    }
    return values
  }

  /// Appends one line and fsyncs it.
  static func append(_ line: String, to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    defer { close(fd) }
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
  }
}
