import Foundation

/// A failure store (`chaos explore --store DIR`), like Hypothesis' example database: a folder
/// of minimal failing scenarios, one per kind of divergence (`<what diverged>.yaml`), that every
/// run replays before exploring and adds to; shards' stores merge (`chaos explore merge`).
package enum FailureStore {
  /// One merged entry.
  package struct Entry: Sendable, Equatable {
    /// Its file name (the key and `.yaml`).
    package var name: String
    /// The stores it was found in.
    package var sources: [String]
    /// The launches of the copy kept (the smallest).
    package var launches: Int
  }

  /// The store's scenarios, sorted.
  package static func entries(in store: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: store)) ?? []
    return names.filter { $0.hasSuffix(".yaml") }.sorted().map { store + "/" + $0 }
  }

  /// The key of a divergence: what was expected and seen, without the launch number (the same
  /// bug shrunk from two sequences), as a file name.
  package static func key(kind: ScenarioFailure.Kind?, difference: String) -> String {
    var text = difference
    if text.hasPrefix("launch "), let colon = text.firstIndex(of: ":") {
      text = String(text[text.index(after: colon)...])
    }
    let slug = String(
      text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.split(separator: "-").joined(separator: "-")
        .prefix(60))
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in ((kind?.rawValue ?? "") + "\n" + text).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return (slug.isEmpty ? "divergence" : slug) + "-" + String(hash & 0xffff_ffff, radix: 16)
  }

  /// Adds a scenario (its target named relative to `store`) unless the store already holds
  /// one as small for the key; returns the entry's path.
  @discardableResult
  package static func add(_ text: String, key: String, launches: Int, to store: String) -> String {
    let path = store + "/" + key + ".yaml"
    try? FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
    if let existing = try? String(contentsOfFile: path, encoding: .utf8), Self.launches(in: existing) <= launches {
      return path
    }
    try? text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Merges stores into `destination`, keeping the smallest scenario per key.
  package static func merge(_ stores: [String], into destination: String) -> [Entry] {
    var merged: [String: Entry] = [:]
    for store in stores {
      for path in entries(in: store) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
        let name = URL(fileURLWithPath: path).lastPathComponent
        let launches = Self.launches(in: text)
        var entry = merged[name] ?? Entry(name: name, sources: [], launches: .max)
        entry.sources.append(store)
        if launches < entry.launches {
          entry.launches = launches
          if URL(fileURLWithPath: store).standardizedFileURL != URL(fileURLWithPath: destination).standardizedFileURL {
            try? FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
            try? retarget(text, from: store, to: destination)
              .write(toFile: destination + "/" + name, atomically: true, encoding: .utf8)
          }
        }
        merged[name] = entry
      }
    }
    return merged.values.sorted { $0.name < $1.name }
  }

  /// The scenario's `target:` named from `destination` instead of `source` (a bare name, built
  /// beside `chaos`, and an absolute path stay as they are).
  static func retarget(_ text: String, from source: String, to destination: String) -> String {
    var lines = text.components(separatedBy: "\n")
    guard let index = lines.firstIndex(where: { $0.hasPrefix("target: ") }),
      let target = try? JSONDecoder().decode(String.self, from: Data(lines[index].dropFirst(8).utf8)),
      target.contains("/"), !target.hasPrefix("/")
    else { return text }
    let absolute = URL(fileURLWithPath: source).appendingPathComponent(target).standardizedFileURL.path
    lines[index] = "target: " + ScenarioWriter.quoted(Explorer.portableTarget(absolute, from: destination))
    return lines.joined(separator: "\n")
  }

  /// The launches of a written scenario (its `  - ` entries).
  static func launches(in text: String) -> Int {
    text.components(separatedBy: "\n").filter { $0.hasPrefix("  - ") }.count
  }
}
