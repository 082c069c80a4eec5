import Synchronization

/// The organizers whose app declared a shutdown path that calls `stopRequested()` (weakly
/// held: a declaration ends with its organizer).
enum ShutdownPaths {
  private struct Entry: @unchecked Sendable {
    weak var organizer: LaunchOrganizer?
  }

  private static let declared = Mutex<[Entry]>([])

  static func declare(_ organizer: LaunchOrganizer) {
    declared.withLock { entries in
      entries.removeAll { $0.organizer == nil }
      if !entries.contains(where: { $0.organizer === organizer }) { entries.append(Entry(organizer: organizer)) }
    }
  }

  static func isDeclared(_ organizer: LaunchOrganizer) -> Bool {
    declared.withLock { entries in entries.contains { $0.organizer === organizer } }
  }
}
