import Foundation
import LaunchProtectionServer
import Synchronization

/// The server's data: `key=value` lines in one file, loaded at start-up, appended to by PUT.
final class KeyValueStore: Sendable {
  /// Why the data file could not be used.
  struct StoreError: Error, CustomStringConvertible {
    var description: String
  }

  let dataFile: String
  private let values = Mutex<[String: String]>([:])

  init(dataDirectory: String) {
    dataFile = dataDirectory + "/store.kv"
  }

  /// Reads the data file. A line without `=` is a poisoned line: the force unwrap below traps
  /// (SIGILL on x86_64) — the kind of bug the launch protection's repair works around.
  /// Failpoint `kv.load` is evaluated first (`hang`, `segv`, `return(EIO)`…).
  func load() throws {
    if case .fail(let errno) = FailpointRegistry.shared.evaluate("kv.load") {
      throw StoreError(description: "cannot read \(dataFile): \(String(cString: strerror(errno)))")
    }
    guard let text = try? String(contentsOfFile: dataFile, encoding: .utf8) else { return }
    var loaded: [String: String] = [:]
    for line in text.split(separator: "\n") where !line.isEmpty {
      let separator = line.firstIndex(of: "=")!
      loaded[String(line[..<separator])] = String(line[line.index(after: separator)...])
    }
    values.withLock { $0 = loaded }
  }

  /// Warms the cache from a dependency (simulated). Failpoint `kv.warmup`: `return(ETIMEDOUT)`
  /// makes the dependency never answer — an async hang that blocks no thread, which only the
  /// launch deadline ends.
  func warmUp() async throws {
    if case .fail = FailpointRegistry.shared.evaluate("kv.warmup") {
      while true { try await Task.sleep(for: .seconds(3600)) }
    }
  }

  /// The repair: moves the data file aside (kept for inspection, never deleted).
  func quarantineDataFile() throws {
    guard FileManager.default.fileExists(atPath: dataFile) else { return }
    let aside = dataFile + ".quarantined-\(Int(Date().timeIntervalSince1970))"
    try FileManager.default.moveItem(atPath: dataFile, toPath: aside)
  }

  /// The value of `key`.
  func get(_ key: String) -> String? { values.withLock { $0[key] } }

  /// Sets `key` and appends the line to the data file.
  func put(_ key: String, _ value: String) throws {
    guard !key.isEmpty, !key.contains("="), !key.contains("\n"), !value.contains("\n") else {
      throw StoreError(description: "keys may not contain '=' or newlines, values no newlines")
    }
    try values.withLock { values in
      let line = Data("\(key)=\(value)\n".utf8)
      if let handle = FileHandle(forWritingAtPath: dataFile) {
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
      } else {
        try FileManager.default.createDirectory(
          atPath: (dataFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try line.write(to: URL(fileURLWithPath: dataFile))
      }
      values[key] = value
    }
  }
}
