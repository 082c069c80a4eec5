import LaunchProtection
import LaunchProtectionLogging
import Logging
import XCTest

final class LaunchEventLoggerTests: XCTestCase {
  private func capturingLogger() -> (Logger, CapturingLogHandler.Storage) {
    let storage = CapturingLogHandler.Storage()
    var logger = Logger(label: "launch") { _ in CapturingLogHandler(storage: storage) }
    logger.logLevel = .trace
    return (logger, storage)
  }

  func testARealLaunchIsLoggedWithReadableMessagesAndMetadata() async throws {
    let server = SimulatedServer()
    // Two launches die unfinished, the third protects at level 1.
    for _ in 0..<2 { _ = try await server.organizer().launch(policy: .threshold(2)) { _ in } }
    let (logger, storage) = capturingLogger()
    let organizer = server.organizer()
    organizer.log(to: logger)

    let outcome = try await organizer.launch(policy: .threshold(2)) { _ in }
    await organizer.markLaunchingFinished()

    XCTAssertEqual(outcome, .repaired(ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    let entries = storage.all
    let launch = try XCTUnwrap(entries.first { $0.metadata["launch.event"] == "launch" })
    XCTAssertEqual(launch.message, organizer.status.decision?.description)
    XCTAssertTrue(launch.message.hasPrefix("launch: 2 consecutive launch crashes"), launch.message)
    XCTAssertEqual(launch.metadata["launch.count"], "2")
    XCTAssertEqual(launch.metadata["launch.mode"], "protect")
    XCTAssertEqual(launch.metadata["launch.level"], "1")
    XCTAssertEqual(launch.metadata["launch.counted"], .array(["20002"]), "each launch counts the one before it")
    XCTAssertEqual(launch.level, .notice)
    XCTAssertEqual(launch.source, "LaunchProtection")

    let enter = try XCTUnwrap(entries.first { $0.metadata["launch.event"] == "protect_enter" })
    XCTAssertEqual(enter.level, .warning)
    XCTAssertEqual(enter.message, "protect mode: repair level 1 (protect) after 2 consecutive launch crashes")
    XCTAssertEqual(enter.metadata["launch.level_name"], "protect")

    let finished = try XCTUnwrap(entries.last)
    XCTAssertEqual(finished.metadata["launch.event"], "launching_finished")
    XCTAssertEqual(finished.message, "launch finished; crash count reset to 0")
    XCTAssertEqual(finished.level, .info)
    XCTAssertFalse(entries.contains { $0.message.contains("LaunchDecision(") }, "no raw struct dumps")
  }

  func testIgnoredLaunchesCarryTheirReason() async throws {
    let server = SimulatedServer()
    let first = server.organizer()
    _ = try await first.launch(policy: .threshold(2)) { _ in }
    first.stopRequested()
    var configuration = server.organizer().configuration
    configuration.ignoreTermination = true
    let next = LaunchOrganizer(configuration: configuration)
    let (logger, storage) = capturingLogger()
    next.log(to: logger)
    _ = try await next.launch(policy: .threshold(2)) { _ in }

    let launch = try XCTUnwrap(storage.all.first)
    XCTAssertEqual(launch.level, .info)
    XCTAssertEqual(launch.metadata["launch.count"], "0")
    XCTAssertEqual(launch.metadata["launch.ignored"], .array([.dictionary(["pid": "20001", "reason": "terminated"])]))
    XCTAssertTrue(launch.message.contains("ignored pid 20001 (terminated)"), launch.message)
  }

  func testProblemsAreLoggedAtWarningOrAbove() {
    let (logger, storage) = capturingLogger()
    let log = LaunchEventLogger(logger)
    let level = ProtectLevel(number: 3, name: "wipe-data", minimumCrashes: 6)
    log(.launchDeadlineExceeded(phase: .protecting, deadline: .milliseconds(1500)))
    log(.levelsExhausted(count: 7, level: level, action: .exit(status: 75)))
    log(.stateProblem(.writeFailed(path: "/state/launch-state.json", operation: "rename", errno: 28)))
    log(.stopRequested)
    log(.exceptionRecorded(CrashCause(type: "SIGSEGV", pid: 42, recordDate: Date(timeIntervalSince1970: 0))))

    let entries = storage.all
    XCTAssertEqual(entries.map(\.level), [.error, .error, .error, .notice, .warning])
    XCTAssertEqual(entries[0].metadata["launch.phase"], "repair")
    XCTAssertEqual(entries[0].metadata["launch.event"], "launch_hang")
    XCTAssertTrue(entries[0].message.contains("the repair ran past its"), entries[0].message)
    XCTAssertEqual(entries[1].metadata["launch.exhausted_action"], "exit(75)")
    XCTAssertEqual(entries[1].metadata["launch.level_name"], "wipe-data")
    XCTAssertEqual(entries[2].metadata["launch.problem"], "write_failed")
    XCTAssertEqual(entries[3].message, "stop requested during the launch; this launch will not be counted")
    XCTAssertEqual(entries[4].metadata["launch.pid"], "42")
    XCTAssertEqual(entries[4].metadata["launch.cause"], "SIGSEGV")
  }

  func testEveryEventHasALevelAndAName() {
    let level = ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)
    let events: [LaunchProtectionEvent] = [
      .protectEnter(count: 2, level: level), .protectFinish(level: level), .relaunch, .launchingFinished,
      .lifeAction(key: "k", outcome: .held), .uncountedExit(.terminated), .stopRequested,
    ]
    let names = events.map(LaunchEventLogger.name(of:))
    XCTAssertEqual(Set(names).count, events.count)
    XCTAssertEqual(LaunchEventLogger.level(of: .lifeAction(key: "k", outcome: .ran)), .info)
    XCTAssertEqual(LaunchEventLogger.level(of: .lifeAction(key: "k", outcome: .held)), .notice)
  }
}
