import LaunchProtectionServer
import Logging
import ServiceLifecycle
import Synchronization
import XCTest

final class ServerLaunchTests: XCTestCase {
  private let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

  /// Hummingbird's `app.addServices(protection)` + `app.runService()`: the app is the one service
  /// of an outer group, and runs its added services in an inner `ServiceGroup` of its own.
  private struct AppWithInnerGroup: Service {
    let services: [any Service]
    let logger: Logger

    func run() async throws {
      try await ServiceGroup(configuration: .init(services: services, logger: logger)).run()
    }
  }

  /// Runs `group(dummy)` until the dummy started, calls `whileRunning`, then triggers a
  /// graceful shutdown and waits for the group to end.
  private func run(
    _ group: (DummyService) -> ServiceGroup, whileRunning: @Sendable () async -> Void = {}
  ) async throws {
    let (started, continuation) = AsyncStream.makeStream(of: Void.self)
    let serviceGroup = group(DummyService(started: continuation))
    let running = Task { try await serviceGroup.run() }
    var iterator = started.makeAsyncIterator()
    _ = await iterator.next()
    await whileRunning()
    await serviceGroup.triggerGracefulShutdown()
    try await running.value
  }

  private func serverLaunch(_ server: SimulatedServer, logger: Logger? = nil) -> ServerLaunch {
    ServerLaunch(configuration: server.organizer().configuration, logger: logger ?? quiet, crashCapture: false)
  }

  func testAddedToTheAppsInnerGroupAGracefulShutdownDuringTheLaunchIsAStopRequest() async throws {
    let server = SimulatedServer()
    let protection = serverLaunch(server)
    try await protection.launch { _ in XCTFail("no repair at count 0") }

    try await run { dummy in
      ServiceGroup(
        configuration: .init(
          services: [AppWithInnerGroup(services: [protection, dummy], logger: quiet)], logger: quiet))
    }

    let record = try XCTUnwrap(try server.state()?.launchesInProgress.first)
    XCTAssertNotNil(record.stopRequestDate, "the outer group's shutdown reached the launch in the inner group")
    XCTAssertEqual(protection.status.launchMode, .normal, "the launch itself is still unfinished")
  }

  func testLastInAnExplicitGroupAGracefulShutdownDuringTheLaunchIsAStopRequest() async throws {
    let server = SimulatedServer()
    let protection = serverLaunch(server)
    try await protection.launch { _ in }

    try await run { dummy in ServiceGroup(configuration: .init(services: [dummy, protection], logger: quiet)) }

    XCTAssertNotNil(try XCTUnwrap(try server.state()?.launchesInProgress.first).stopRequestDate)
  }

  func testMarkFinishedFromTheRunningServerEndsTheLaunchAndTheShutdownRecordsNothing() async throws {
    let server = SimulatedServer()
    let protection = serverLaunch(server)
    try await protection.launch { _ in }

    try await run(
      { dummy in ServiceGroup(configuration: .init(services: [dummy, protection], logger: quiet)) },
      whileRunning: { await protection.markLaunchingFinished() })

    XCTAssertEqual(protection.organizer.currentMode, .finished)
    XCTAssertEqual(try server.state()?.launchesInProgress, [])
  }

  func testAfterTwoLaunchCrashesBeginRunsTheRepairAndEveryEventIsLogged() async throws {
    let server = SimulatedServer()
    // Two launches die unfinished (their simulated processes are reported dead).
    for _ in 0..<2 { try await serverLaunch(server).launch { _ in XCTFail("no repair below the threshold") } }
    let storage = CapturingLogHandler.Storage()
    var logger = Logger(label: "launch") { _ in CapturingLogHandler(storage: storage) }
    logger.logLevel = .trace
    let protection = serverLaunch(server, logger: logger)
    let repairs = Mutex<[Int]>([])

    let outcome = try await protection.launch { context in repairs.withLock { $0.append(context.count) } }
    await protection.markLaunchingFinished()

    XCTAssertEqual(outcome, .repaired(ProtectLevel(number: 1, name: "protect", minimumCrashes: 2)))
    XCTAssertEqual(repairs.withLock { $0 }, [2], "the default policy repairs after two launch crashes in a row")
    XCTAssertEqual(protection.status.launchMode, .finished)
    let events = storage.all.compactMap { $0.metadata["launch.event"].map { "\($0)" } }
    for event in ["launch", "protect_enter", "relaunch", "launching_finished"] {
      XCTAssertTrue(events.contains(event), "\(event) logged through swift-log: \(events)")
    }
  }

  func testWaitForDependencyNamesTheWaitInTheStatusAndKeepsTheBodysErrorType() async throws {
    struct Refused: Error, Equatable {}
    let server = SimulatedServer()
    let protection = serverLaunch(server)
    try await protection.launch { _ in }
    let seen = Mutex<String>("")

    // The dependency answers: the wait is over.
    let answer = await protection.waitForDependency("postgres") { () async -> Int in
      seen.withLock { $0 = protection.status.description }
      return 7
    }
    XCTAssertEqual(answer, 7)
    XCTAssertTrue(seen.withLock { $0 }.contains("waiting for postgres"), seen.withLock { $0 })
    XCTAssertEqual(protection.status.waitingFor, [])
    XCTAssertNil(try server.state()?.launchesInProgress.first?.waitingFor)

    // It does not: the body's own error type comes back, and the launch stays held by the dependency.
    do {
      let _: Int = try await protection.waitForDependency("postgres") { () async throws(Refused) -> Int in
        throw Refused()
      }
      XCTFail("the body threw")
    } catch {
      XCTAssertEqual(error, Refused(), "typed: no cast needed")
    }
    XCTAssertEqual(protection.status.waitingFor, ["postgres"])
    XCTAssertEqual(try server.state()?.launchesInProgress.first?.waitingFor, "postgres")
  }

  func testCrashCaptureIsInstalledByDefaultInTheStateDirectoryAndNotWhenOptedOut() throws {
    XCTAssertFalse(CrashCapture.isInstalled, "nothing else in this test process installs crash capture")
    let server = SimulatedServer()
    let configuration = server.organizer().configuration

    _ = ServerLaunch(configuration: configuration, logger: quiet, crashCapture: false)
    XCTAssertFalse(CrashCapture.isInstalled, "crashCapture: false installs nothing")

    _ = ServerLaunch(configuration: configuration, logger: quiet)
    defer { CrashCapture.uninstall() }
    XCTAssertTrue(CrashCapture.isInstalled, "installed by default, outside chaos too")
  }
}
