import Foundation

/// `stdout_contains:`, `stdout_lacks:`, `stderr_contains:`, `stderr_lacks:`, `output_contains:`
/// and `output_lacks:` (both streams) against the files the launch's output went to
/// (`stdout.txt`, `stderr.txt` in its artifacts directory), read once the process is gone, by
/// ``OutputExpectation``'s line-matching rule.
enum OutputChecks {
  /// The failures of `expect`'s output expectations for the process whose artifacts are in
  /// `directory`; the files are read only when the launch expects something of them.
  static func check(_ expect: OutputExpectation, directory: String) -> [ScenarioFailure] {
    guard !expect.isEmpty else { return [] }
    // Keys that read the same files together: stdout's, stderr's, then both streams'.
    let groups =
      OutputExpectation.Stream.allCases.map { stream in
        OutputExpectation.allKeys.filter { !$0.bothStreams && $0.stream == stream }
      } + [OutputExpectation.allKeys.filter(\.bothStreams)]
    var failures: [ScenarioFailure] = []
    for keys in groups {
      guard let first = keys.first, keys.contains(where: { expect.texts[$0] != nil }) else { continue }
      let files = first.files.map { directory + "/\($0.rawValue).txt" }
      // Each line with where it is, for a message: `stderr line 3`.
      let lines = zip(first.files, files).flatMap { (part, file) in
        Self.lines(of: file).enumerated().map { (text: $1, place: "\(part) line \($0 + 1)") }
      }
      for key in keys {
        for text in expect.texts[key] ?? [] {
          if let failure = Self.check(text, key: key, lines: lines, files: files) { failures.append(failure) }
        }
      }
    }
    return failures
  }

  /// One entry against the stream's lines: nil when it holds.
  static func check(_ text: String, key: OutputExpectation.Key, lines: [String], file: String) -> ScenarioFailure? {
    let placed = lines.enumerated().map { (text: $1, place: "\(key.stream) line \($0 + 1)") }
    return check(text, key: key, lines: placed, files: [file])
  }

  /// One entry against lines that say where each is: nil when it holds.
  static func check(
    _ text: String, key: OutputExpectation.Key, lines: [(text: String, place: String)], files: [String]
  ) -> ScenarioFailure? {
    let kind = Self.kind(key)
    let found = lines.first { $0.text.contains(text) }
    let streams = key.bothStreams ? "stdout and stderr" : "\(key.stream)"
    switch (key.rule, found) {
    case (.contains, nil):
      let what = lines.isEmpty ? "an empty \(streams)" : "no line holding it among \(lines.count) lines of \(streams)"
      return .expected(kind, "'\(text)'", saw: "\(what) (\(files.joined(separator: ", ")))")
    case (.lacks, let line?):
      return .expected(kind, "'\(text)'", saw: "it on \(line.place): \(Self.shown(line.text))")
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
    if key.bothStreams { return key.rule == .contains ? .outputContains : .outputLacks }
    return switch (key.stream, key.rule) {
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
