import ChaosProbe
import LaunchProtection

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `dependency` of `CHAOS_APP`: the part of the launch that waits for a dependency (a database
/// on 127.0.0.1:`CHAOS_DEPENDENCY_PORT`), declared with `LaunchOrganizer.waitForDependency`, as
/// a server that connects to PostgreSQL at start-up would. Inside, a TCP connect every 50 ms
/// until one is answered or `give_up_ms` passed; giving up throws, and the app exits 1, as a
/// server whose database is down does.
struct DependencyWait: Sendable {
  /// The dependency never answered.
  struct GaveUp: Error, CustomStringConvertible {
    var name: String
    var port: Int
    var attempts: Int
    var milliseconds: Int
    var description: String {
      "\(name) on 127.0.0.1:\(port) did not answer \(attempts) connects in \(milliseconds) ms"
    }
  }

  let organizer: LaunchOrganizer
  let name: String
  let port: Int
  let giveUpMilliseconds: Int
  /// How many waits before the app gives up for good (default 1): a failed wait, then another.
  let attempts: Int

  /// The wait for `configuration.dependency`, nil without one; a problem (no port) ends the app.
  init?(_ configuration: AppConfiguration, organizer: LaunchOrganizer, environment: [String: String]) {
    guard let dependency = configuration.dependency else { return nil }
    guard let port = dependency.port ?? environment["CHAOS_DEPENDENCY_PORT"].flatMap({ Int($0) }) else {
      fail("invalid CHAOS_APP: dependency needs a port: CHAOS_DEPENDENCY_PORT (a scenario's dependency:) or 'port'")
    }
    self.organizer = organizer
    self.name = dependency.name
    self.port = port
    self.giveUpMilliseconds = dependency.giveUpMilliseconds ?? 3000
    self.attempts = max(1, dependency.attempts ?? 1)
    let giveUp = Duration.milliseconds(giveUpMilliseconds)
    // What a log line of the organizer's wait events says: how long each wait took, a failed
    // one at least its give-up time.
    organizer.observe { observation in
      guard let wait = observation.dependencyWait, wait.stage != .waiting else { return }
      ChaosProbe.emit(
        "dependency_waited",
        [
          "dependency": wait.dependency, "stage": "\(wait.stage)", "measured": wait.waited != nil,
          "past_give_up": (wait.waited ?? .zero) >= giveUp,
        ])
    }
  }

  /// Waits inside `waitForDependency`, up to `attempts` waits; on giving up the last, says so
  /// and exits 1. ChaosProbe reports each wait (`dependency_wait`, `dependency_answered`,
  /// `dependency_failed`).
  func wait() {
    for attempt in 1...attempts where waitOnce(last: attempt == attempts) { return }
  }

  /// `wait()` through the async `waitForDependency` (`launch_on: async`).
  func waitAsync() async {
    for attempt in 1...attempts where await waitOnceAsync(last: attempt == attempts) { return }
  }

  /// One wait through the async API; true when answered. A failed last wait ends the app.
  private func waitOnceAsync(last: Bool) async -> Bool {
    do {
      try await organizer.waitForDependency(name) { () async throws(GaveUp) in
        reportStatus()
        try connect()
      }
      return true
    } catch {
      return gaveUp(error, last: last)
    }
  }

  /// One wait; true when answered. A failed last wait ends the app.
  private func waitOnce(last: Bool) -> Bool {
    do {
      try organizer.waitForDependency(name) {
        reportStatus()
        try connect()
      }
      return true
    } catch {
      return gaveUp(error, last: last)
    }
  }

  /// A wait gave up: said on standard error; the last one ends the app (exit 1). False.
  private func gaveUp(_ error: any Error, last: Bool) -> Bool {
    writeStandardError("chaos-target: \(error)\n")
    if last { exit(1) }
    return false
  }

  /// What the organizer says while it waits, for scenarios to check.
  private func reportStatus() {
    let status = organizer.status
    ChaosProbe.emit(
      "dependency_status",
      [
        "dependency": name, "waiting_for": status.waitingFor.joined(separator: " and "),
        "says_waiting": status.description.contains("waiting for \(name)"),
        "outages_in_a_row": status.dependencyOutage?.launchesInARow ?? 0,
        "says_outage": status.dependencyOutage.map { status.description.contains(Self.outageWords($0)) } ?? false,
      ])
  }

  /// How the status line names the previous starts' outage ("the previous start ended waiting
  /// for postgres", "the previous 5 starts in a row ended …").
  private static func outageWords(_ outage: DependencyOutage) -> String {
    let starts = outage.launchesInARow == 1 ? "start" : "\(outage.launchesInARow) starts in a row"
    return "the previous \(starts) ended waiting for \(outage.dependency)"
  }

  /// Connects until answered (`ok\n` read, or the peer closed after accepting).
  private func connect() throws(GaveUp) {
    let start = ContinuousClock.now
    let limit = Duration.milliseconds(giveUpMilliseconds)
    var attempts = 0
    while true {
      attempts += 1
      if Self.answered(port: port) { return }
      if ContinuousClock.now - start >= limit {
        throw GaveUp(name: name, port: port, attempts: attempts, milliseconds: giveUpMilliseconds)
      }
      // A loop of short sleeps: a signal (a thread dump) would end one long sleep early.
      let next = ContinuousClock.now + .milliseconds(50)
      while ContinuousClock.now < next { usleep(5_000) }
    }
  }

  /// One blocking connect to 127.0.0.1:`port` (refused at once on loopback when nothing listens).
  private static func answered(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { return false }
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var buffer = [UInt8](repeating: 0, count: 16)
    return recv(fd, &buffer, buffer.count, 0) >= 0
  }
}
