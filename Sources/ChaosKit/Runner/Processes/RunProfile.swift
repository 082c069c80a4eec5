import Failpoints
import Foundation
import Synchronization

/// Where a run's time goes, by part: wall time summed per named part over every job (spawning,
/// waiting for the target, the target's own phases from its event times, reading and checking
/// events, setting up and removing folders). On with `CHAOS_PROFILE` set (`chaos explore`
/// prints it) or `enable()` (`chaos bench`'s explore section); off, a part costs one load.
package enum RunProfile {
  private static let on = Atomic<Bool>(getenv("CHAOS_PROFILE") != nil)
  private static let parts = Mutex([String: (nanoseconds: UInt64, count: Int)]())

  /// Whether parts are timed.
  package static var enabled: Bool { on.load(ordering: .relaxed) }

  /// Times parts from now on.
  package static func enable() { on.store(true, ordering: .relaxed) }

  /// A start time for `add`, 0 when off.
  package static func start() -> UInt64 { enabled ? MonotonicClock.nanoseconds() : 0 }

  /// Adds the time since `start` to `part`.
  package static func add(_ part: String, since start: UInt64) {
    guard enabled else { return }
    add(part, nanoseconds: MonotonicClock.nanoseconds() &- start)
  }

  /// Adds `nanoseconds` to `part`.
  package static func add(_ part: String, nanoseconds: UInt64) {
    guard enabled else { return }
    parts.withLock { parts in
      var entry = parts[part] ?? (0, 0)
      entry.nanoseconds &+= nanoseconds
      entry.count += 1
      parts[part] = entry
    }
  }

  /// Each part's total seconds and count, largest first; the totals start again from zero.
  package static func take() -> [(part: String, seconds: Double, count: Int)] {
    parts.withLock { parts in
      defer { parts = [:] }
      return parts.map { ($0.key, Double($0.value.nanoseconds) / 1e9, $0.value.count) }.sorted {
        $0.seconds > $1.seconds
      }
    }
  }
}
