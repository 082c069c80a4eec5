import Foundation

/// `stdout_contains:`, `stdout_lacks:`, `stderr_contains:`, `stderr_lacks:` against the files
/// the launch's output went to (`stdout.txt`, `stderr.txt` in its artifacts directory), read
/// once the process is gone, by ``OutputExpectation``'s line-matching rule.
enum OutputChecks {
  /// The failures of `expect`'s output expectations for the process whose artifacts are in
  /// `directory`; the files are read only when the launch expects something of them.
  static func check(_ expect: OutputExpectation, directory: String) -> [ScenarioFailure] {
    guard !expect.isEmpty else { return [] }
    var failures: [ScenarioFailure] = []
    for stream in OutputExpectation.Stream.allCases {
      let keys = OutputExpectation.Rule.allCases.map { OutputExpectation.Key(stream: stream, rule: $0) }
      guard keys.contains(where: { expect.texts[$0] != nil }) else { continue }
      let file = directory + "/\(stream.rawValue).txt"
      let lines = Self.lines(of: file)
      for key in keys {
        for text in expect.texts[key] ?? [] {
          if let failure = Self.check(text, key: key, lines: lines, file: file) { failures.append(failure) }
        }
      }
    }
    return failures
  }

  /// One entry against the stream's lines: nil when it holds.
  static func check(_ text: String, key: OutputExpectation.Key, lines: [String], file: String) -> ScenarioFailure? {
    let kind = Self.kind(key)
    let found = lines.firstIndex { $0.contains(text) }
    switch (key.rule, found) {
    case (.contains, nil):
      let what =
        lines.isEmpty ? "an empty \(key.stream)" : "no line holding it among \(lines.count) lines of \(key.stream)"
      return .expected(kind, "'\(text)'", saw: "\(what) (\(file))")
    case (.lacks, let index?):
      return .expected(kind, "'\(text)'", saw: "it on \(key.stream) line \(index + 1): \(Self.shown(lines[index]))")
    default:
      return nil
    }
  }

  /// The lines of a file by the documented rule (none for a missing file: a launch that
  /// wrote nothing).
  static func lines(of path: String) -> [String] {
    guard let data = FileManager.default.contents(atPath: path), !data.isEmpty else { return [] }
    var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    return lines.map(String.init)
  }

  private static func kind(_ key: OutputExpectation.Key) -> ScenarioFailure.Kind {
    switch (key.stream, key.rule) {
    case (.stdout, .contains): .stdoutContains
    case (.stdout, .lacks): .stdoutLacks
    case (.stderr, .contains): .stderrContains
    case (.stderr, .lacks): .stderrLacks
    }
  }

  /// A line as a message shows it: at most 300 characters.
  private static func shown(_ line: String) -> String {
    line.count > 300 ? String(line.prefix(300)) + "…" : line
  }
}
