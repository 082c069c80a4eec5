import LaunchProtection
import LaunchProtectionLogging
import LaunchProtectionMetrics
import Logging
import MetricsTestKit
import XCTest

/// A wait for a dependency as operators see it: the logs, the metrics, the status line.
final class DependencyObservationTests: XCTestCase {
  struct Refused: Error {}

  func testAWaitIsLoggedAndMeasuredAndAnOutageCountedByDependency() async throws {
    let server = SimulatedServer()
    // A launch that ended while postgres was down.
    let down = server.organizer()
    _ = try await down.launch(policy: .threshold(2)) { _ in }
    _ = try? await down.waitForDependency("postgres") { () async throws in throw Refused() }

    let storage = CapturingLogHandler.Storage()
    var logger = Logger(label: "launch") { _ in CapturingLogHandler(storage: storage) }
    logger.logLevel = .trace
    let metrics = TestMetrics()
    let organizer = server.organizer()
    organizer.log(to: logger)
    organizer.recordMetrics(factory: metrics)
    _ = try await organizer.launch(policy: .threshold(2)) { _ in XCTFail("an outage never repairs") }
    XCTAssertEqual(
      metrics.counterTotal(
        label: LaunchMetrics.Name.dependencyOutages, dimensions: [("dependency", "postgres")]), 1)
    XCTAssertEqual(try metrics.expectGauge(LaunchMetrics.Name.consecutiveCrashes).lastValue, 0)
    let gauge = LaunchMetrics.Name.waitingForDependency
    try await organizer.waitForDependency("postgres") { () async throws in
      XCTAssertEqual(metrics.recorders(label: gauge).first?.lastValue, 1)
      XCTAssertTrue(
        organizer.status.description.contains("waiting for postgres, the previous start ended waiting for postgres"),
        organizer.status.description)
    }
    XCTAssertEqual(metrics.recorders(label: gauge).first?.lastValue, 0, "answered")
    await organizer.markLaunchingFinished()

    let entries: [CapturingLogHandler.Entry] = storage.all
    let launch = try XCTUnwrap(entries.first { $0.metadata["launch.event"] == "launch" })
    XCTAssertTrue(launch.message.contains("ended waiting for postgres"), launch.message)
    // The outage history first (this start follows one), then the wait.
    let waits = entries.filter { $0.metadata["launch.dependency"] == "postgres" }
    XCTAssertEqual(
      waits.map { $0.metadata["launch.event"] }, ["dependency_outages", "dependency_wait", "dependency_answered"])
    XCTAssertEqual(waits.map { $0.level }, [Logger.Level.warning, .debug, .info])
    XCTAssertTrue(waits[0].message.hasPrefix("1 start ended waiting for postgres"), waits[0].message)
    XCTAssertTrue(waits[1].message.contains("waiting for postgres"), waits[1].message)
  }
}
