import LaunchProtection
import LaunchProtectionLogging
import Logging
import XCTest

/// The levels of a wait for a dependency: a healthy start that waits for a database which
/// answers at once logs nothing at notice or above; a slow answer and a failure are seen.
final class DependencyWaitLogTests: XCTestCase {
  struct Refused: Error {}

  /// A logger whose every line (all levels) lands in the storage returned with it.
  private func capturingLogger() -> (Logger, CapturingLogHandler.Storage) {
    let storage = CapturingLogHandler.Storage()
    return (Logger(label: "launch") { _ in CapturingLogHandler(storage: storage) }, storage)
  }

  func testADependencyThatAnswersAtOnceLogsNothingAtNotice() async throws {
    let server = SimulatedServer()
    let (logger, storage) = capturingLogger()
    let organizer = server.organizer()
    organizer.log(to: logger)
    _ = try await organizer.launch(policy: .threshold(2)) { _ in XCTFail("a healthy start never repairs") }
    try await organizer.waitForDependency("postgres") { () async throws in }
    await organizer.markLaunchingFinished()

    let entries = storage.all
    let waits = entries.filter { $0.metadata["launch.dependency"] == "postgres" }
    XCTAssertEqual(waits.map { $0.metadata["launch.event"] }, ["dependency_wait", "dependency_answered"])
    XCTAssertEqual(waits.map { $0.level }, [.debug, .info])
    let loud = entries.filter { $0.level >= .notice }
    XCTAssertEqual(loud.map { $0.message }, [], "a healthy start logs nothing at notice or above")
  }

  func testALongWaitIsANoticeAndAFailedOneAWarning() {
    let slow = LaunchEventLogger.slowDependencyWait
    let answered = { (waited: Duration) in DependencyWait(dependency: "postgres", stage: .answered, waited: waited) }
    XCTAssertEqual(LaunchEventLogger.level(of: DependencyWait(dependency: "postgres", stage: .waiting)), .debug)
    XCTAssertEqual(LaunchEventLogger.level(of: answered(.milliseconds(10))), .info)
    XCTAssertEqual(LaunchEventLogger.level(of: answered(slow - .milliseconds(1))), .info)
    XCTAssertEqual(LaunchEventLogger.level(of: answered(slow)), .notice)
    XCTAssertEqual(LaunchEventLogger.level(of: answered(.seconds(12))), .notice)
    let failed = DependencyWait(dependency: "postgres", stage: .failed, waited: .milliseconds(10))
    XCTAssertEqual(LaunchEventLogger.level(of: failed), .warning)
  }

  /// The outage line's two forms carry the same keys, so that one alert matches both.
  func testTheOutageLineHasTheSameMetadataAfterOneOutageAndAfterSeveral() async throws {
    let server = SimulatedServer()
    let (logger, storage) = capturingLogger()
    for _ in 1...3 {
      let organizer = server.organizer()
      organizer.log(to: logger)
      _ = try await organizer.launch(policy: .threshold(2)) { _ in XCTFail("an outage never repairs") }
      _ = try? await organizer.waitForDependency("postgres") { () async throws in throw Refused() }
    }
    let lines = storage.all.filter { $0.metadata["launch.event"] == "dependency_outages" }
    XCTAssertEqual(lines.count, 2, "the second and the third start follow an outage")
    XCTAssertTrue(lines[0].message.hasPrefix("1 start ended waiting for postgres at 20"), lines[0].message)
    XCTAssertTrue(lines[1].message.hasPrefix("2 starts in a row ended waiting for postgres since 20"), lines[1].message)
    for (line, inARow) in zip(lines, ["1", "2"]) {
      XCTAssertEqual(line.level, .warning)
      XCTAssertEqual(
        Set(line.metadata.keys),
        [
          "launch.event", "launch.dependency", "launch.outages_in_a_row", "launch.outage_since", "launch.outage_last",
          "launch.pid",
        ])
      XCTAssertEqual(line.metadata["launch.outages_in_a_row"], "\(inARow)")
      let since = try XCTUnwrap(line.metadata["launch.outage_since"].flatMap { Int("\($0)") })
      let last = try XCTUnwrap(line.metadata["launch.outage_last"].flatMap { Int("\($0)") })
      XCTAssertGreaterThan(since, 1_700_000_000, "seconds since 1970")
      XCTAssertLessThanOrEqual(since, last)
    }
    XCTAssertEqual(lines[0].metadata["launch.outage_since"], lines[0].metadata["launch.outage_last"], "one outage")
  }
}
