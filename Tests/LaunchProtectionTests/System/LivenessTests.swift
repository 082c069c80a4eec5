import Foundation
import XCTest

@testable import LaunchProtection

/// The real liveness check (`LaunchEnvironment.system`): this process is alive, a child that
/// exited and was not yet reaped (a zombie: its pid and start time still match) is not, and a
/// reused pid is not the launch that had it.
final class LivenessTests: XCTestCase {
  func testThisProcessIsAliveAndAZombieIsNot() throws {
    let system = LaunchEnvironment.system
    XCTAssertTrue(system.isAlive(system.current()))

    var pid: pid_t = 0
    let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
    defer { for argument in arguments { free(argument) } }
    XCTAssertEqual(posix_spawn(&pid, "/bin/true", nil, nil, arguments, environ), 0)
    defer {
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    // Not reaped: it stays a zombie until the waitpid above.
    var stat: (state: String, startTime: UInt64)?
    for _ in 0..<2_000 where stat?.state != "Z" {
      stat = Self.stat(of: pid)
      usleep(1_000)
    }
    XCTAssertEqual(stat?.state, "Z")
    let startTime = try XCTUnwrap(stat?.startTime)
    let identity = ProcessIdentity(pid: pid, startTime: startTime, bootID: system.current().bootID)
    XCTAssertFalse(system.isAlive(identity), "a zombie is not running")
    var reused = system.current()
    reused.startTime += 1
    XCTAssertFalse(system.isAlive(reused), "another start time on the same pid is another process")
  }

  /// Field 3 (state) and 22 (start time) of `/proc/<pid>/stat`, read here independently of
  /// the library's own parser.
  private static func stat(of pid: pid_t) -> (state: String, startTime: UInt64)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 19, let start = UInt64(fields[19]) else { return nil }
    return (String(fields[0]), start)
  }
}

/// PID 1 of a container restarted within one clock tick: the new process has the pid, start
/// time (10 ms ticks) and boot id of the one that died, so "is it alive?" says yes.
final class ReusedIdentityTests: XCTestCase {
  /// Every launch of this configuration is PID 1 with the same start time and boot id, alive;
  /// its state lives in `launches`' directory.
  private func pidOneConfiguration(_ launches: SimulatedLaunches) -> LaunchOrganizer.Configuration {
    let pidOne = ProcessIdentity(pid: 1, startTime: 4242, bootID: "boot-A")
    var configuration = launches.configuration()
    configuration.environment = LaunchEnvironment(
      current: { pidOne }, isAlive: { $0 == pidOne }, executableID: { "build-1" })
    return configuration
  }

  func testADeadLaunchWithThisProcesssOwnIdentityIsCounted() {
    let launches = SimulatedLaunches()
    let configuration = pidOneConfiguration(launches)
    let first = LaunchOrganizer(configuration: configuration)
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    ExitTracker.shared.untrack(first)  // the first container's process died mid-launch
    let second = LaunchOrganizer(configuration: configuration)
    second.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    defer { second.launchingFinished() }
    XCTAssertEqual(second.status.decision?.count, 1, "a dead launch that had this process's pid and start time")
  }

  func testAnUnfinishedLaunchOfThisVeryProcessIsStillRunning() {
    let launches = SimulatedLaunches()
    let configuration = pidOneConfiguration(launches)
    let first = LaunchOrganizer(configuration: configuration)
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    defer { first.launchingFinished() }
    let second = LaunchOrganizer(configuration: configuration)
    second.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    defer { second.launchingFinished() }
    XCTAssertEqual(second.status.decision?.count, 0, "the first organizer's launch runs in this process")
  }
}
