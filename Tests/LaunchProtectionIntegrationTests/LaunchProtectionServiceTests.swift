import LaunchProtection
import LaunchProtectionServiceLifecycle
import Logging
import ServiceLifecycle
import Synchronization
import XCTest

final class LaunchProtectionServiceTests: XCTestCase {
  private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

  /// Runs `[dummy, service]` in a real ServiceGroup, waits for the dummy to start, calls
  /// `whileRunning`, then triggers graceful shutdown and waits for the group to end.
  private func runGroup(
    _ service: LaunchProtectionService, whileRunning: @Sendable () async -> Void = {}
  ) async throws {
    let (started, continuation) = AsyncStream.makeStream(of: Void.self)
    let group = ServiceGroup(
      configuration: .init(services: [DummyService(started: continuation), service], logger: logger))
    let running = Task { try await group.run() }
    var iterator = started.makeAsyncIterator()
    _ = await iterator.next()
    await whileRunning()
    await group.triggerGracefulShutdown()
    try await running.value
  }

  func testGracefulShutdownDuringTheLaunchRecordsAStopRequest() async throws {
    let server = SimulatedServer()
    let organizer = server.organizer()
    let outcome = try await organizer.launch(policy: .threshold(2)) { _ in XCTFail("no repair at count 0") }
    XCTAssertEqual(outcome, .normal)
    XCTAssertNil(try server.state()?.launchesInProgress.first?.stopRequestDate)

    try await runGroup(LaunchProtectionService(organizer: organizer))

    let record = try XCTUnwrap(try server.state()?.launchesInProgress.first)
    XCTAssertNotNil(record.stopRequestDate, "graceful shutdown during the launch is a stop request")
    XCTAssertEqual(organizer.currentMode, .normal, "the launch itself is still unfinished")
  }

  func testTheNextLaunchDoesNotCountAStoppedLaunch() async throws {
    let server = SimulatedServer()
    let first = server.organizer()
    _ = try await first.launch(policy: .threshold(1)) { _ in }
    try await runGroup(LaunchProtectionService(organizer: first))

    var configuration = server.organizer().configuration
    configuration.ignoreTermination = true
    let next = LaunchOrganizer(configuration: configuration)
    let outcome = try await next.launch(policy: .threshold(1)) { _ in XCTFail("a stop must not count") }
    XCTAssertEqual(outcome, .normal)
    XCTAssertEqual(next.status.decision?.count, 0)
    XCTAssertEqual(next.status.decision?.ignored.map(\.reason), [.terminated])
  }

  func testAfterLaunchingFinishedGracefulShutdownRecordsNothing() async throws {
    let server = SimulatedServer()
    let organizer = server.organizer()
    let stops = EventCounter()
    organizer.observe { if case .stopRequested = $0.event { stops.increment() } }
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    let service = LaunchProtectionService(organizer: organizer)

    try await runGroup(service) { await service.markLaunchingFinished() }

    XCTAssertEqual(organizer.currentMode, .finished)
    let state = try XCTUnwrap(try server.state())
    XCTAssertEqual(state.launchesInProgress, [], "nothing in progress after the launch finished")
    XCTAssertEqual(state.consecutiveCrashes, 0)
    XCTAssertEqual(stops.value, 0, "no stop request once the launch finished")
  }

  func testReadinessClosureMarksTheLaunchFinished() async throws {
    let server = SimulatedServer()
    let organizer = server.organizer()
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    let (ready, signal) = AsyncStream.makeStream(of: Void.self)
    let service = LaunchProtectionService(organizer: organizer) {
      var iterator = ready.makeAsyncIterator()
      _ = await iterator.next()
    }

    try await runGroup(service) {
      signal.yield()
      for _ in 0..<500 where organizer.currentMode != .finished { try? await Task.sleep(for: .milliseconds(10)) }
    }

    XCTAssertEqual(organizer.currentMode, .finished)
    XCTAssertEqual(try server.state()?.launchesInProgress, [])
  }

  func testCancellationIsNotAStopRequest() async throws {
    let server = SimulatedServer()
    let organizer = server.organizer()
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    let (started, continuation) = AsyncStream.makeStream(of: Void.self)
    let group = ServiceGroup(
      configuration: .init(
        services: [DummyService(started: continuation), LaunchProtectionService(organizer: organizer)], logger: logger))
    let running = Task { try await group.run() }
    var iterator = started.makeAsyncIterator()
    _ = await iterator.next()
    running.cancel()
    _ = try? await running.value

    let record = try XCTUnwrap(try server.state()?.launchesInProgress.first)
    XCTAssertNil(record.stopRequestDate, "a cancelled group (a failed service) is not a clean stop")
  }

  func testMarkLaunchFinishedBeforeTheLaunchStartsDoesNothing() async throws {
    let server = SimulatedServer()
    let organizer = server.organizer()
    let service = LaunchProtectionService(organizer: organizer)
    await service.markLaunchingFinished()
    XCTAssertEqual(organizer.currentMode, .idle)
    _ = try await organizer.launch(policy: .threshold(2)) { _ in }
    await service.markLaunchingFinished()
    XCTAssertEqual(organizer.currentMode, .finished)
  }
}

/// Counts events from an observer.
final class EventCounter: Sendable {
  private let count = Mutex(0)
  var value: Int { count.withLock { $0 } }
  func increment() { count.withLock { $0 += 1 } }
}
