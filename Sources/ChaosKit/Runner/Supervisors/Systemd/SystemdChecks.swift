import Foundation

/// The expectations only a real systemd answers: `systemd:` (its view of the unit),
/// `journal_contains:` (the unit's journal) and `started_at:` (when systemd started it).
enum SystemdChecks {
  /// What was seen of one launch.
  struct Seen {
    var view: SystemdUnitView
    var journal: [String]
    /// Seconds from the first launch's `launch` event to this one's (nil: no `launch` event).
    var startedAt: Double?
    /// The state directory's mode on disk (nil: there is none).
    var stateDirectoryMode: Int?
  }

  static func check(_ expect: Expectation, _ seen: Seen) -> [ScenarioFailure] {
    var failures: [ScenarioFailure] = []
    if let wanted = expect.systemd {
      let pairs: [(String, String, String?)] = [
        ("n_restarts", "NRestarts", wanted.nRestarts.map(String.init)),
        ("result", "Result", wanted.result),
        ("active_state", "ActiveState", wanted.activeState),
        ("sub_state", "SubState", wanted.subState),
        ("exec_main_status", "ExecMainStatus", wanted.execMainStatus.map(String.init)),
      ]
      for (key, property, value) in pairs {
        guard let value, seen.view[property] != value else { continue }
        failures.append(
          .expected(.systemd, value, saw: "\(seen.view[property]) (\(property))", named: "systemd.\(key)"))
      }
      if let text = wanted.statusText, !matches(text, seen.view["StatusText"]) {
        failures.append(
          .expected(.systemd, "'\(text)'", saw: "'\(seen.view["StatusText"])'", named: "systemd.status_text"))
      }
      if let mode = wanted.stateDirectoryMode, seen.stateDirectoryMode != mode {
        let saw = seen.stateDirectoryMode.map { "0" + String($0, radix: 8) } ?? "no state directory"
        failures.append(
          .expected(.systemd, "0" + String(mode, radix: 8), saw: saw, named: "systemd.state_directory_mode"))
      }
    }
    for text in expect.journalContains where !seen.journal.contains(where: { $0.contains(text) }) {
      let last = seen.journal.suffix(6).map { "    " + $0 }.joined(separator: "\n")
      failures.append(
        .expected(
          .journalContains, "a line holding '\(text)'", saw: "none in \(seen.journal.count) lines; the last:\n\(last)"))
    }
    for text in expect.journalLacks {
      guard let line = seen.journal.first(where: { $0.contains(text) }) else { continue }
      failures.append(.expected(.journalLacks, "no line holding '\(text)'", saw: "'\(line)'"))
    }
    if let range = expect.startedAt {
      let saw = seen.startedAt.map { String(format: "%.2f s", $0) } ?? "no launch event"
      if seen.startedAt.map({ !range.contains($0) }) ?? true {
        let wanted = String(
          format: "between %.2f s and %.2f s after the first start", range.lowerBound, range.upperBound)
        failures.append(.expected(.startedAt, wanted, saw: saw))
      }
    }
    return failures
  }

  /// `text` equals `value`, or is a prefix of it when it ends in `*`.
  static func matches(_ text: String, _ value: String) -> Bool {
    text.hasSuffix("*") ? value.hasPrefix(text.dropLast()) : value == text
  }

  /// The mode bits of the directory at `path`, through a link systemd made (`DynamicUser=`'s
  /// `/var/lib/<name>` -> `private/<name>`); nil: none there.
  static func mode(of path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o7777)
  }
}
