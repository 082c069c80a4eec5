import Yams

/// What a launch's output must or must not hold: `stdout_contains:`, `stdout_lacks:`,
/// `stderr_contains:`, `stderr_lacks:`, and `output_contains:`, `output_lacks:` over both
/// streams (a logger may write to either: under Vapor's the library's lines go to standard
/// output), each a list of texts.
///
/// The line-matching rule: the output is split into lines at `\n` (a last line without one
/// counts; bytes that are not UTF-8 read as U+FFFD), and an entry matches a line that holds it
/// as a case-sensitive substring. `…_contains`: every entry matches at least one line (in any
/// order, the same line may serve several). `…_lacks`: no entry matches any line. Entries are
/// neither empty nor span lines.
package struct OutputExpectation: Sendable, Equatable {
  /// One of the two streams a launch writes.
  package enum Stream: String, Sendable, CaseIterable {
    /// Standard output (`stdout.txt` among the artifacts).
    case stdout
    /// Standard error (`stderr.txt`).
    case stderr
  }

  /// Whether an entry must be found or must not be.
  package enum Rule: String, Sendable, CaseIterable {
    /// Every entry matches at least one line.
    case contains
    /// No entry matches any line.
    case lacks
  }

  /// One expectation key: a stream and a rule (`stderr_lacks`), or both streams and a rule
  /// (`output_lacks`). Both streams are a flag, not a third `Stream`: that enum is part of the
  /// 1.0 API surface `CI/api-check` compares, and a new case there is a break.
  package struct Key: Sendable, Hashable, CustomStringConvertible {
    /// The stream checked (standard output's, when ``bothStreams``).
    package var stream: Stream
    /// How its entries are checked.
    package var rule: Rule
    /// Standard output's lines, then standard error's (`output_…`).
    package var bothStreams = false
    /// The scenario key.
    package var description: String { "\(bothStreams ? "output" : stream.rawValue)_\(rule.rawValue)" }
    /// The streams whose files it reads.
    package var files: [Stream] { bothStreams ? [.stdout, .stderr] : [stream] }
  }

  /// Every key, in the order the documentation lists them: stdout's, stderr's, then both's.
  package static let allKeys: [Key] =
    Stream.allCases.flatMap { stream in Rule.allCases.map { Key(stream: stream, rule: $0) } }
    + Rule.allCases.map { Key(stream: .stdout, rule: $0, bothStreams: true) }

  /// The scenario keys, in the order the documentation lists them.
  package static let keys = allKeys.map(\.description)

  /// The texts of each key given.
  package var texts: [Key: [String]] = [:]

  /// Whether nothing is expected of the output (so it is not read).
  package var isEmpty: Bool { texts.isEmpty }

  /// Reads the keys of an `expect:` mapping.
  static func load(_ map: [String: Node], reader: NodeReader) throws(ScenarioError) -> OutputExpectation {
    var output = OutputExpectation()
    for key in allKeys {
      guard let node = map[key.description] else { continue }
      var entries: [String] = []
      for entry in try reader.sequence(node, what: key.description) {
        let text = try reader.string(entry, what: "\(key) entry")
        if text.isEmpty { throw reader.error(entry, "\(key) entry is empty (it would match every line)") }
        if text.contains("\n") {
          throw reader.error(entry, "\(key) entry spans lines; each entry is matched within one line")
        }
        entries.append(text)
      }
      output.texts[key] = entries
    }
    return output
  }
}
