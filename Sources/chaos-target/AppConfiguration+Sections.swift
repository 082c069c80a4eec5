/// The nested objects of `CHAOS_APP`: its protect levels, task overrides, `handle_exception`
/// and `dependency`, and the `protect_finish` values.
extension AppConfiguration {
  struct Level: Decodable {
    var name: String
    var at: Int
  }

  struct TaskOverride: Decodable {
    var name: String?
    var after: [String]?
    var placement: String?
    var priority: Int?
    var sleepMilliseconds: Int?

    enum CodingKeys: String, CodingKey {
      case name, after, placement, priority
      case sleepMilliseconds = "sleep_ms"
    }
  }

  /// `handle_exception`: a cause an external crash reporter saw, handed to
  /// `LaunchOrganizer.handleException` during the launch (before its tasks) or after it finished.
  struct HandleException: Decodable {
    var type: String
    var detail: String?
    var when: String?
    /// Makes the detail this many bytes long (`detail`, then `x`s): a reporter's message longer
    /// than a state may hold, without a literal that long in the scenario.
    var detailBytes: Int?

    enum CodingKeys: String, CodingKey {
      case type, detail, when
      case detailBytes = "detail_bytes"
    }

    /// The detail handed to `handleException`.
    var fullDetail: String? {
      guard let detailBytes else { return detail }
      let start = detail ?? ""
      return start + String(repeating: "x", count: max(0, detailBytes - start.utf8.count))
    }
  }

  /// `dependency`: the launch waits for a dependency inside `LaunchOrganizer.waitForDependency`
  /// (DependencyWait.swift): a TCP connect to 127.0.0.1:`port` (default `CHAOS_DEPENDENCY_PORT`,
  /// a scenario's `dependency:`) every 50 ms until answered or `give_up_ms` (default 3000)
  /// passed, then exit 1. `task`: at the start of that task, before its failpoint (a bad
  /// migration after the connect); absent: at the start of the launch, before the tasks (with
  /// `launch_on: async`, through the async `waitForDependency`).
  struct Dependency: Decodable {
    var name: String
    var task: String?
    var giveUpMilliseconds: Int?
    var port: Int?
    /// Waits before giving up for good (default 1): after a failed wait the app waits again.
    var attempts: Int?
    /// Waits once the launch finished instead (a reconnect while serving), where the wait
    /// means nothing to the organizer.
    var afterLaunch: Bool?

    /// Whether the wait comes at the start of the launch (neither in a task nor after it).
    var waitsAtLaunchStart: Bool { task == nil && afterLaunch != true }

    enum CodingKeys: String, CodingKey, CaseIterable {
      case name, task, port, attempts
      case giveUpMilliseconds = "give_up_ms"
      case afterLaunch = "after_launch"
    }
  }

  enum ProtectFinish: String, Decodable {
    case immediate
    case afterLifeActions = "after_life_actions"
    case never
  }
}
