import Foundation

/// A process as `/proc` names it: its pid and its start time (clock ticks since boot), which
/// together name one process even after the pid is reused.
package struct ProcessStamp: Sendable, Hashable, CustomStringConvertible {
  /// The pid.
  package var pid: pid_t
  /// Field 22 of `/proc/<pid>/stat`.
  package var startTime: UInt64

  package var description: String { "pid \(pid)" }

  /// Whether this very process still runs: the pid there with the same start time, and not
  /// a zombie (dead, waiting for its new parent, init, to reap it).
  package var isAlive: Bool {
    guard let found = ProcessTree.stat(pid) else { return false }
    return found.startTime == startTime && found.state != "Z"
  }
}

/// Reads the process tree from `/proc`: which processes descend from a service, and which of
/// them are left after it was stopped. PostgreSQL's backends call `setsid()`, so killing the
/// service's process group does not reach them: the tree, recorded while it runs, does.
package enum ProcessTree {
  /// The state, parent pid and start time of `pid` (fields 3, 4 and 22 of its stat line); nil
  /// when gone.
  static func stat(_ pid: pid_t) -> (state: Character, parent: pid_t, startTime: UInt64)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    // After the command name (which may hold spaces and parentheses): state is field 3.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 19, let state = fields[0].first, let parent = pid_t(fields[1]), let start = UInt64(fields[19])
    else { return nil }
    return (state, parent, start)
  }

  /// `root` and every process descending from it now, root first.
  package static func descendants(of root: pid_t) -> [ProcessStamp] {
    guard let rootStat = stat(root) else { return [] }
    var children: [pid_t: [ProcessStamp]] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = pid_t(entry), pid != root, let found = stat(pid) else { continue }
      children[found.parent, default: []].append(ProcessStamp(pid: pid, startTime: found.startTime))
    }
    var tree = [ProcessStamp(pid: root, startTime: rootStat.startTime)]
    var index = 0
    while index < tree.count {
      tree += children[tree[index].pid] ?? []
      index += 1
    }
    return tree
  }

  /// SIGKILLs each process of `stamps` that is still the same process; returns those it found.
  @discardableResult
  package static func killLeft(_ stamps: [ProcessStamp]) -> [ProcessStamp] {
    let left = stamps.filter(\.isAlive)
    for stamp in left { kill(stamp.pid, SIGKILL) }
    return left
  }
}
