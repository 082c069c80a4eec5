import LaunchProtection
import LaunchProtectionMetrics
import Metrics
import MetricsTestKit
import XCTest

final class LaunchMetricsTests: XCTestCase {
  private typealias Name = LaunchMetrics.Name

  /// The mode whose gauge is 1, failing when not exactly one is.
  private static func currentMode(_ metrics: TestMetrics) -> String? {
    let current = metrics.recorders(label: Name.mode).filter { $0.lastValue == 1 }
    XCTAssertEqual(current.count, 1, "one mode gauge at 1")
    XCTAssertEqual(metrics.recorders(label: Name.mode).count, LaunchStatus.modeNames.count)
    return current.first?.dimensions.first { $0.0 == "mode" }?.1
  }

  func testACrashLoopRepairedAtLevelOne() async throws {
    let server = SimulatedServer()
    for _ in 0..<2 { _ = try await server.organizer().launch(policy: .threshold(2)) { _ in } }
    let metrics = TestMetrics()
    let organizer = server.organizer()
    organizer.recordMetrics(factory: metrics)
    XCTAssertEqual(Self.currentMode(metrics), "idle")
    XCTAssertEqual(try metrics.expectCounter(Name.levelsExhausted).totalValue, 0, "there from the start")

    _ = try await organizer.launch(policy: .threshold(2)) { _ in
      XCTAssertEqual(Self.currentMode(metrics), "protect")
      XCTAssertEqual(try metrics.expectGauge(Name.protectLevel).lastValue, 1)
    }
    XCTAssertEqual(Self.currentMode(metrics), "relaunched")
    await organizer.markLaunchingFinished()

    XCTAssertEqual(Self.currentMode(metrics), "finished")
    XCTAssertEqual(metrics.counterTotal(label: Name.launches, dimensions: [("outcome", "protect")]), 1)
    XCTAssertEqual(metrics.counterTotal(label: Name.launches, dimensions: [("outcome", "relaunched")]), 1)
    XCTAssertEqual(metrics.counterTotal(label: Name.launches, dimensions: [("outcome", "finished")]), 1)
    XCTAssertEqual(metrics.counterTotal(label: Name.launches, dimensions: [("outcome", "normal")]), 0)
    XCTAssertEqual(metrics.counterTotal(label: Name.protectEntries, dimensions: [("level", "1")]), 1)
    // Both crashes before this start, not only the one it found (the crashed processes never
    // served a scrape). The simulated launches left no crash report: their cause is unknown.
    XCTAssertEqual(metrics.counterTotal(label: Name.countedCrashes, dimensions: [("cause", "unknown")]), 2)
    let start = try metrics.expectGauge(Name.launchStart).lastValue
    XCTAssertEqual(start, try XCTUnwrap(organizer.status.startedAt).timeIntervalSince1970)
    XCTAssertEqual(try metrics.expectGauge(Name.consecutiveCrashes).lastValue, 2)
    XCTAssertEqual(try metrics.expectGauge(Name.protectLevel).lastValue, 1)
    let duration = try metrics.expectTimer(Name.launchDuration)
    XCTAssertEqual(duration.values.count, 1)
    XCTAssertGreaterThanOrEqual(duration.values[0], 0)
    XCTAssertEqual(try metrics.expectCounter(Name.levelsExhausted).totalValue, 0)
  }

  /// A state directory of another user (root runs the test; `nobody` owns the directory) is
  /// refused: the launch is unprotected, and the metrics say so by kind.
  func testAnUntrustedStateDirectoryIsCountedAsAStateProblem() async throws {
    guard geteuid() == 0 else { throw XCTSkip("needs root, to give the directory to nobody") }
    let server = SimulatedServer()
    try FileManager.default.createDirectory(atPath: server.stateDirectory, withIntermediateDirectories: true)
    XCTAssertEqual(chown(server.stateDirectory, 65534, 65534), 0)
    let metrics = TestMetrics()
    let organizer = server.organizer()
    organizer.recordMetrics(factory: metrics)
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    XCTAssertEqual(metrics.counterTotal(label: Name.stateProblems, dimensions: [("kind", "untrusted")]), 1)
    XCTAssertTrue(organizer.status.description.contains("state untrusted at \(server.stateDirectory)"))
  }

  func testANormalLaunch() async throws {
    let server = SimulatedServer()
    let metrics = TestMetrics()
    let organizer = server.organizer()
    organizer.recordMetrics(factory: metrics)
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    XCTAssertEqual(Self.currentMode(metrics), "normal")
    XCTAssertEqual(try metrics.expectTimer(Name.launchDuration).values, [], "not before the launch finished")
    await organizer.markLaunchingFinished()

    XCTAssertEqual(Self.currentMode(metrics), "finished")
    XCTAssertEqual(metrics.counterTotal(label: Name.launches, dimensions: [("outcome", "normal")]), 1)
    XCTAssertEqual(metrics.counterTotal(label: Name.launches, dimensions: [("outcome", "finished")]), 1)
    XCTAssertEqual(metrics.counters(label: Name.countedCrashes), [], "nothing counted")
    XCTAssertEqual(metrics.counters(label: Name.protectEntries), [])
    XCTAssertEqual(try metrics.expectGauge(Name.consecutiveCrashes).lastValue, 0)
    XCTAssertEqual(try metrics.expectGauge(Name.protectLevel).lastValue, 0)
    XCTAssertEqual(try metrics.expectTimer(Name.launchDuration).values.count, 1)
  }

  func testExhaustedLevelsThatStayDegraded() async throws {
    let server = SimulatedServer()
    let policy = ProtectionPolicy.threshold(2).whenExhausted(.stayDegraded)
    for _ in 0..<3 { _ = try? await server.organizer().launch(policy: policy) { _ in } }
    let metrics = TestMetrics()
    let organizer = server.organizer()
    organizer.recordMetrics(factory: metrics)
    do {
      _ = try await organizer.launch(policy: policy) { _ in }
      XCTFail("a degraded launch throws")
    } catch let error as LaunchOrganizerError where error.code == .degraded {}

    XCTAssertEqual(Self.currentMode(metrics), "degraded")
    XCTAssertEqual(metrics.counterTotal(label: Name.launches, dimensions: [("outcome", "degraded")]), 1)
    XCTAssertEqual(try metrics.expectCounter(Name.levelsExhausted).totalValue, 1)
    XCTAssertEqual(metrics.counterTotal(label: Name.protectEntries, dimensions: [("level", "1")]), 1)
    XCTAssertEqual(try metrics.expectGauge(Name.consecutiveCrashes).lastValue, 3)
  }
}
