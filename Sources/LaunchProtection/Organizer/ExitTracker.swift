import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Sees `exit(status)` through glibc's `on_exit`, which (unlike `atexit`) is told the status:
/// `exit(0)` during launch is a clean exit and must not count; a non-zero status is left
/// to count as a launch crash.
final class ExitTracker: Sendable {
  static let shared = ExitTracker()

  /// One tracked organizer, in a singly linked list: a list of class nodes needs no generic
  /// metadata, which an array or a dictionary would build at run time on a fresh process's
  /// first launch (there is one organizer, or a few). Held strongly: an app may let its
  /// organizer go before it calls `exit(0)` during the launch (a degraded async launch did),
  /// and that clean exit must still be recorded; `launchingFinished()` lets it go.
  private final class Entry: @unchecked Sendable {
    let organizer: LaunchOrganizer
    /// Its launch's id.
    let launchID: String
    var next: Entry?
    init(_ organizer: LaunchOrganizer, launchID: String, next: Entry?) {
      self.organizer = organizer
      self.launchID = launchID
      self.next = next
    }
  }

  private struct Tracked: @unchecked Sendable {
    var first: Entry?
    var registered = false

    /// Drops `organizer`, unlinking its node in place: no node is made or freed for the others
    /// (rebuilding the list made the launch path's cost grow with every organizer still held).
    /// It is in the list once (`track` is called once per organizer): the walk stops there.
    mutating func remove(_ organizer: LaunchOrganizer) {
      guard let head = first else { return }
      if head.organizer === organizer {
        first = head.next
        return
      }
      var previous = head
      while let current = previous.next {
        if current.organizer === organizer {
          previous.next = current.next
          return
        }
        previous = current
      }
    }
  }

  private let tracked = Mutex(Tracked())

  func track(_ organizer: LaunchOrganizer, launchID: String) {
    // An organizer begins one launch (a second `begin` does nothing): it is tracked once, so
    // it goes in front without a walk for an older entry of its own.
    let register = tracked.withLock { tracked in
      tracked.first = Entry(organizer, launchID: launchID, next: tracked.first)
      defer { tracked.registered = true }
      return !tracked.registered
    }
    if register { on_exit({ status, _ in ExitTracker.shared.processExiting(status: status) }, nil) }
  }

  func untrack(_ organizer: LaunchOrganizer) {
    tracked.withLock { $0.remove(organizer) }
  }

  /// Whether `launchID` is an unfinished launch of this process.
  func isTracking(launchID: String) -> Bool {
    // Walked under the lock: `remove` relinks nodes in place.
    tracked.withLock { tracked in
      var node = tracked.first
      while let current = node {
        if current.launchID == launchID { return true }
        node = current.next
      }
      return false
    }
  }

  /// The organizers `exit` would tell, newest first.
  func trackedOrganizers() -> [LaunchOrganizer] {
    tracked.withLock { tracked in
      var organizers: [LaunchOrganizer] = []
      var node = tracked.first
      while let current = node {
        organizers.append(current.organizer)
        node = current.next
      }
      return organizers
    }
  }

  private func processExiting(status: Int32) {
    for organizer in trackedOrganizers() { organizer.processExiting(status: status) }
  }
}
