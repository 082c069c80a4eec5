import LaunchProtection
import LaunchProtectionLogging
import LaunchProtectionMetrics
import Logging
import MetricsTestKit
import XCTest

/// The outage history, where an operator sees it while the server does not listen: one log line
/// at each start after an outage, and two gauges.
final class OutageHistoryTests: XCTestCase {
  struct Refused: Error {}

  /// Five launches that ended waiting for postgres (each gave up and was abandoned).
  private func fiveOutages(_ server: SimulatedServer) async throws {
    for _ in 1...5 {
      let down = server.organizer()
      _ = try await down.launch(policy: .threshold(2)) { _ in XCTFail("an outage never repairs") }
      _ = try? await down.waitForDependency("postgres") { () async throws in throw Refused() }
    }
  }

  func testTheStartAfterFiveOutagesLogsTheHistoryInOneLineAndTheGaugesShowIt() async throws {
    let server = SimulatedServer()
    try await fiveOutages(server)
    let storage = CapturingLogHandler.Storage()
    let logger = Logger(label: "launch") { _ in CapturingLogHandler(storage: storage) }
    let metrics = TestMetrics()
    let organizer = server.organizer()
    organizer.log(to: logger)
    organizer.recordMetrics(factory: metrics)
    _ = try await organizer.launch(policy: .threshold(2)) { _ in XCTFail("an outage never repairs") }

    let lines = storage.all.filter { $0.metadata["launch.event"] == "dependency_outages" }
    XCTAssertEqual(lines.count, 1, "one line")
    let line = try XCTUnwrap(lines.first)
    XCTAssertEqual(line.level, .warning)
    XCTAssertTrue(
      line.message.hasPrefix("5 starts in a row ended waiting for postgres since 20"), line.message)
    XCTAssertTrue(line.message.contains(", the last at 20"), line.message)
    XCTAssertTrue(line.message.hasSuffix("; none was counted as a launch crash"), line.message)
    XCTAssertFalse(line.message.contains("\n"))
    XCTAssertEqual(line.metadata["launch.outages_in_a_row"], "5")
    XCTAssertEqual(line.metadata["launch.dependency"], "postgres")
    let outage = try XCTUnwrap(organizer.status.dependencyOutage)
    XCTAssertEqual(line.message, outage.history)

    let postgres = [("dependency", "postgres")]
    let starts = try metrics.expectGauge(LaunchMetrics.Name.dependencyOutageStarts, postgres)
    let last = try metrics.expectGauge(LaunchMetrics.Name.dependencyOutageLast, postgres)
    let since = try metrics.expectGauge(LaunchMetrics.Name.dependencyOutageSince, postgres)
    XCTAssertEqual(starts.lastValue, 5)
    XCTAssertEqual(last.lastValue, outage.decisionDate.timeIntervalSince1970)
    XCTAssertEqual(since.lastValue, outage.since.timeIntervalSince1970)
    XCTAssertLessThan(outage.since, outage.decisionDate, "the first of the five ended before the last")
    XCTAssertGreaterThan(outage.decisionDate, Date(timeIntervalSince1970: 1_700_000_000), "seconds since 1970")

    // The first process that serves after the outage is the first to be scraped: it tells of
    // all five starts (issue 62: it said 1), and keeps saying so once its launch finished.
    let outages = { metrics.counterTotal(label: LaunchMetrics.Name.dependencyOutages, dimensions: postgres) }
    XCTAssertEqual(outages(), 5)
    organizer.waitForDependency("postgres") {}  // answered (the sync form, its result discarded)
    await organizer.markLaunchingFinished()
    XCTAssertEqual(starts.lastValue, 5, "kept for the process's lifetime, so the first scrape sees it")
    XCTAssertEqual(last.lastValue, outage.decisionDate.timeIntervalSince1970)
    XCTAssertEqual(since.lastValue, outage.since.timeIntervalSince1970)
    XCTAssertEqual(outages(), 5)
  }

  func testAStartAfterNoOutageAndAfterOneSaysSo() async throws {
    let server = SimulatedServer()
    let storage = CapturingLogHandler.Storage()
    let logger = Logger(label: "launch") { _ in CapturingLogHandler(storage: storage) }
    let first = server.organizer()
    first.log(to: logger)
    _ = try await first.launch(policy: .threshold(2)) { _ in }
    _ = try? await first.waitForDependency("postgres") { () async throws in throw Refused() }
    XCTAssertFalse(storage.all.contains { $0.metadata["launch.event"] == "dependency_outages" }, "no outage before")

    let second = server.organizer()
    second.log(to: logger)
    _ = try await second.launch(policy: .threshold(2)) { _ in }
    let line = try XCTUnwrap(storage.all.first { $0.metadata["launch.event"] == "dependency_outages" })
    XCTAssertTrue(
      line.message.hasPrefix("1 start ended waiting for postgres at 20"), line.message)
    XCTAssertTrue(line.message.hasSuffix("; not counted as a launch crash"), line.message)
  }
}
