import Foundation

/// How long a new SIGTERM owner that appears during the launch has SIGTERM to itself before
/// the organizer adopts it (a SIGTERM in that window is not recorded as a stop), from fresh
/// processes of the bench helper, with the machine idle and with every core busy.
public struct StopWindowCost: Codable, Sendable {
  /// One owner, one load.
  public struct Row: Codable, Sendable {
    /// `dispatch` (a Dispatch signal source, as Vapor and ServiceGroup make, from its
    /// `resume()`), `dispatch-installed` (the same, from the moment libdispatch's handler took
    /// SIGTERM's action), `dispatch-registered` (the same, from its registration handler) or
    /// `handler` (from `signal()`).
    public var owner: String
    /// Whether busy loops (one per core, plus one) ran beside the helper.
    public var loaded: Bool
    /// The window, from the app's call that changes the owner to the organizer's adoption.
    public var window: LatencySummary

    /// A row.
    public init(owner: String, loaded: Bool, window: LatencySummary) {
      self.owner = owner
      self.loaded = loaded
      self.window = window
    }
  }

  /// Every owner, idle then loaded.
  public var rows: [Row]

  /// The rows.
  public init(rows: [Row]) { self.rows = rows }
}

/// Busy loops on every core, plus one: what a CI runner or a crowded node looks like to a
/// thread that must run soon after it wakes. Killed by `stop()` (and by the bench's exit).
public final class BusyLoad {
  private var pids: [pid_t] = []

  /// Starts `count` busy loops (default: one per core, plus one).
  public init(count: Int = ProcessInfo.processInfo.activeProcessorCount + 1) throws {
    for _ in 0..<count {
      var pid: pid_t = 0
      let arguments = ["/bin/sh", "-c", "while :; do :; done"]
      var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
      defer { for pointer in argv { free(pointer) } }
      let result = posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ)
      guard result == 0 else {
        stop()
        throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
      }
      pids.append(pid)
    }
  }

  /// Kills and reaps the loops.
  public func stop() {
    for pid in pids { kill(pid, SIGKILL) }
    for pid in pids {
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    pids = []
  }

  deinit { stop() }
}

extension BenchTables {
  /// The stop-adoption window per owner, idle and loaded.
  public static func stopWindow(_ cost: StopWindowCost) -> String {
    "\nSIGTERM owner appearing during the launch → the organizer's adoption, fresh processes (µs)\n"
      + BenchTable.render(
        cost.rows.map { row in
          let owner =
            switch row.owner {
            case "dispatch": "Dispatch source, from resume() (upper bound)"
            case "dispatch-installed": "Dispatch source, from libdispatch's handler install (the window)"
            case "dispatch-registered": "Dispatch source, from its registration (lower bound)"
            default: "signal handler, from signal()"
            }
          return ("\(owner), \(row.loaded ? "all cores busy" : "idle")", row.window)
        })
  }
}
