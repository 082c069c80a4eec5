import Foundation
import Synchronization

/// Sees `exit(status)` through glibc's `on_exit`, which (unlike `atexit`) is told the status:
/// `exit(0)` during launch is a clean exit and must not count; a non-zero status is left
/// to count as a launch crash.
final class ExitTracker: Sendable {
  static let shared = ExitTracker()

  private struct Weak: @unchecked Sendable {
    weak var organizer: LaunchOrganizer?
  }

  /// A list, not a dictionary keyed by ObjectIdentifier: there is one organizer or a few, and a
  /// dictionary's first use costs a fresh process a third of its first launch's instructions
  /// (generic metadata and conformance lookups).
  private let organizers = Mutex<[Weak]>([])
  private let registered = Mutex(false)

  func track(_ organizer: LaunchOrganizer) {
    registered.withLock { done in
      guard !done else { return }
      done = true
      on_exit({ status, _ in ExitTracker.shared.processExiting(status: status) }, nil)
    }
    organizers.withLock { list in
      list.removeAll { $0.organizer == nil || $0.organizer === organizer }
      list.append(Weak(organizer: organizer))
    }
  }

  func untrack(_ organizer: LaunchOrganizer) {
    organizers.withLock { list in list.removeAll { $0.organizer == nil || $0.organizer === organizer } }
  }

  private func processExiting(status: Int32) {
    let live = organizers.withLock { $0.compactMap(\.organizer) }
    for organizer in live { organizer.processExiting(status: status) }
  }
}
