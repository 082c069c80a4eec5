import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

/// Rules too small for a file of their own: return values and defaults the documentation
/// states, and equality of a decision.
final class SmallRulesTests: XCTestCase {
  func testKeepAliveWithoutAWatchdogSendsNothingAndSaysSo() {
    XCTAssertNil(ProcessInfo.processInfo.environment["WATCHDOG_USEC"], "the test runs without a watchdog")
    XCTAssertNil(SystemdNotify.watchdogInterval)
    XCTAssertFalse(SimulatedLaunches().organizer().keepAlive())
  }

  func testANotifySocketPathTooLongForAnAddressIsNotSent() {
    let long = "/tmp/" + String(repeating: "n", count: 200)
    XCTAssertFalse(SystemdNotify.send("READY=1", to: long))
    XCTAssertFalse(SystemdNotify.send("READY=1", to: "@" + String(repeating: "n", count: 200)))
  }

  func testRefreshModulesSucceedsWithOrWithoutAnInstalledHandler() {
    XCTAssertTrue(CrashCapture.refreshModules())
  }

  func testADegradedServiceIsNotReadyByDefault() {
    XCTAssertFalse(
      LaunchOrganizer.Configuration(stateDirectory: "/nonexistent").readyWhenDegraded,
      "the documented default keeps a readiness probe failing")
  }

  func testUnwindTablesArePrefaultedByDefault() {
    XCTAssertTrue(CrashCapture.Options().prefaultUnwindTables, "the documented default")
  }

  func testADecisionEqualsItselfAndNotOneInAnotherMode() throws {
    let launches = SimulatedLaunches()
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    let decision = try XCTUnwrap(organizer.decision)
    XCTAssertEqual(decision, decision)
    var other = decision
    other.mode = .protect(ProtectLevel(number: 1, name: "clear caches", minimumCrashes: 2))
    XCTAssertNotEqual(decision, other)
  }

  func testSendWithoutANotifySocketIsFalse() {
    XCTAssertNil(ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], "the test runs outside systemd")
    XCTAssertFalse(SystemdNotify.isAvailable)
    XCTAssertFalse(SystemdNotify.send("READY=1"))
  }

  /// `LaunchStatus.since` is when the current mode began: the normal launch, and the relaunch
  /// after `protectFinished()`, not when the organizer was made.
  func testStatusSinceIsWhenTheModeBegan() throws {
    let launches = SimulatedLaunches()
    // One crashed launch, so that the next one (threshold 1) is in protect mode.
    let crashed = launches.organizer()
    crashed.finishLaunching(policy: .threshold(1000), launch: {}, protect: { _ in })
    let organizer = launches.organizer()
    usleep(20_000)
    let beforeLaunch = Date()
    let seen = Mutex<(launch: Date?, relaunch: Date?, repairEnded: Date?)>((nil, nil, nil))
    organizer.finishLaunching(
      policy: .threshold(1),
      launch: {
        seen.withLock { $0.relaunch = organizer.status.since }
        usleep(20_000)
      },
      protect: { _ in
        seen.withLock { $0.launch = organizer.status.since }
        usleep(20_000)
        seen.withLock { $0.repairEnded = Date() }
        organizer.protectFinished()
      })
    let times = seen.withLock { $0 }
    XCTAssertGreaterThanOrEqual(try XCTUnwrap(times.launch), beforeLaunch, "protect mode began at finishLaunching")
    XCTAssertGreaterThanOrEqual(
      try XCTUnwrap(times.relaunch), try XCTUnwrap(times.repairEnded), "the relaunch began at protectFinished")
    let beforeFinish = Date()
    organizer.launchingFinished()
    XCTAssertGreaterThanOrEqual(organizer.status.since, beforeFinish, "finished at launchingFinished")
  }

  func testCrashCaptureChainsToThePreviousHandlerByDefault() {
    XCTAssertTrue(CrashCapture.Options().chainToPreviousHandler, "the documented default")
  }

  /// `sun_path` holds 108 bytes with its terminating zero: 107 fit, 108 do not.
  func testASocketNameFitsSunPathWithItsTerminator() {
    XCTAssertNotNil(UnixSocketAddress("/" + String(repeating: "s", count: 106)))
    XCTAssertNil(UnixSocketAddress("/" + String(repeating: "s", count: 107)))
    XCTAssertNil(UnixSocketAddress(""))
  }

  /// `WATCHDOG_PID` names the process the watchdog is for; another pid's watchdog is not ours.
  func testTheWatchdogIsOnlyForThePidItNames() {
    defer {
      unsetenv("WATCHDOG_USEC")
      unsetenv("WATCHDOG_PID")
    }
    setenv("WATCHDOG_USEC", "0", 1)
    XCTAssertNil(SystemdNotify.watchdogInterval, "an interval of 0 is no watchdog")
    setenv("WATCHDOG_USEC", "200000", 1)
    XCTAssertEqual(SystemdNotify.watchdogInterval, .milliseconds(200))
    setenv("WATCHDOG_PID", String(getpid()), 1)
    XCTAssertEqual(SystemdNotify.watchdogInterval, .milliseconds(200))
    setenv("WATCHDOG_PID", String(getpid() + 1), 1)
    XCTAssertNil(SystemdNotify.watchdogInterval)
  }

  /// An update that changes nothing writes nothing, even when the lock could not be taken:
  /// the unlocked write a change would need is not made for no change.
  func testAnUnchangedStateIsNotWrittenWithoutTheLock() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let store = StateStore(directory: directory, lockTimeout: .milliseconds(10))
    let holder = open(store.lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    XCTAssertGreaterThanOrEqual(holder, 0)
    XCTAssertEqual(flock(holder, LOCK_EX | LOCK_NB), 0)
    let (_, problems) = store.update { _ in }
    close(holder)
    XCTAssertEqual(problems.count, 1, "\(problems)")
    guard case .lockUnavailable = problems.first else { return XCTFail("\(problems)") }
    XCTAssertFalse(FileManager.default.fileExists(atPath: store.statePath), "nothing written")
  }

  func testACrashCauseIsDuringTheLaunchByDefault() {
    XCTAssertFalse(CrashCause(type: "SIGSEGV", recordedAt: 0).afterLaunch)
  }

  /// A stop is recorded once: a second `stopRequested()` (a second SIGTERM, or the app's own
  /// shutdown path after the organizer's handler) neither writes again nor tells the observers again.
  func testAStopRequestedTwiceIsRecordedOnce() throws {
    let launches = SimulatedLaunches()
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    organizer.finishLaunching(
      policy: .threshold(1000),
      launch: {
        organizer.stopRequested()
        organizer.stopRequested()
      }, protect: { _ in })
    XCTAssertEqual(recorder.count(of: "stop_requested"), 1, "\(recorder.all)")
  }

  /// An installation the handler refuses (here a crash report path longer than its buffer)
  /// is an error the app sees, not a silent launch without crash capture.
  func testAnInstallTheHandlerRefusesThrows() {
    var options = CrashCapture.Options()
    options.reportDirectory = "/tmp/" + String(repeating: "d", count: 5_000)
    XCTAssertThrowsError(try CrashCapture.install(options)) { error in
      XCTAssertTrue("\(error)".contains("too long"), "\(error)")
    }
  }

  /// A state directory whose parents do not exist yet (`/var/lib/app/launch` on a fresh
  /// machine) is created with them, and the state written there without a problem.
  func testAStateDirectoryIsCreatedWithItsParents() throws {
    let directory = SimulatedLaunches().stateDirectory + "/var/lib/app/launch"
    let (_, problems) = StateStore(directory: directory).update { $0.consecutiveCrashes = 2 }
    XCTAssertEqual(problems, [])
    XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, 2)
  }

  /// `protects(count:)` agrees with the ladder: from a level's minimum count on, not before.
  func testAPolicyProtectsFromItsThresholdOn() {
    let policy = ProtectionPolicy.threshold(2)
    XCTAssertFalse(policy.protects(count: 1))
    XCTAssertTrue(policy.protects(count: 2))
    XCTAssertTrue(policy.protects(count: 3))
  }

  /// The slot checksum is the standard CRC-32 (zlib's), so files written by any build, or by a
  /// tool, agree: the check value of "123456789" is 0xCBF43926.
  func testTheSlotChecksumIsTheStandardCRC32() {
    XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
    XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
  }

  /// The checksum's tables are written out as a literal (no start-up cost): every entry must be
  /// the reflected polynomial's, not only those the check value happens to use. Table `k` is
  /// table `k - 1` advanced by one zero byte.
  func testTheChecksumTablesAreThePolynomials() {
    XCTAssertEqual(CRC32.tables.count, 8 * 256)
    for index in 0..<256 {
      var value = UInt32(index)
      for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
      XCTAssertEqual(CRC32.tables[index], value, "table 0 entry \(index)")
    }
    for table in 1..<8 {
      for index in 0..<256 {
        let previous = CRC32.tables[(table - 1) * 256 + index]
        XCTAssertEqual(
          CRC32.tables[table * 256 + index], (previous >> 8) ^ CRC32.tables[Int(previous & 0xFF)],
          "table \(table) entry \(index)")
      }
    }
  }

  /// Eight bytes a step gives the byte-at-a-time checksum (the path a non-contiguous sequence
  /// takes) for every length and alignment around the step, and across a checksum in parts.
  func testTheSlicedChecksumMatchesTheByteAtATimeOne() {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<80).map { _ in UInt8.random(in: 0...255, using: &generator) }
    for start in 0..<8 {
      for end in start...bytes.count {
        let part = bytes[start..<end]
        XCTAssertEqual(CRC32.checksum(part), CRC32.checksum(AnySequence(part)), "bytes \(start)..<\(end)")
        let split = (start + end) / 2
        let inParts = CRC32.finish(
          CRC32.update(CRC32.update(CRC32.start, with: bytes[start..<split]), with: bytes[split..<end]))
        XCTAssertEqual(inParts, CRC32.checksum(part), "bytes \(start)..<\(end) split at \(split)")
      }
    }
  }

  /// The benchmark walk answers exactly when a handler is installed (nil, never a trap, without one).
  func testTheBenchmarkWalkAnswersOnlyWithAnInstalledHandler() {
    XCTAssertEqual(CrashCapture.benchmarkWalk() != nil, CrashCapture.isInstalled)
  }

  /// One watcher thread per deadline, however often it is re-armed.
  func testARearmedDeadlineKeepsOneWatcherThread() {
    func watchers() -> Int {
      let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
      return tasks.filter {
        (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix("launch-deadline")
          == true
      }.count
    }
    let before = watchers()
    let deadline = LaunchDeadline(duration: .seconds(60))
    for phase in [LaunchDeadline.Phase.launch, .repair, .relaunch] {
      deadline.arm(phase, thread: nil) { _, _ in }
    }
    usleep(50_000)
    XCTAssertEqual(watchers() - before, 1)
    deadline.disarm()
  }

  /// A stop request after the launch finished is not a stop of a launch: nothing is recorded
  /// and the observers hear nothing (the organizer's SIGTERM handler is gone by then too).
  func testAStopAfterTheLaunchFinishedIsNotRecorded() {
    let recorder = Recorder()
    let organizer = SimulatedLaunches().organizer(observe: recorder)
    organizer.finishLaunching(
      policy: .threshold(1000), launch: { organizer.launchingFinished() }, protect: { _ in })
    organizer.stopRequested()
    organizer.launchingFinished()
    XCTAssertEqual(recorder.count(of: "stop_requested"), 0, "\(recorder.all)")
    XCTAssertEqual(recorder.count(of: "launching_finished"), 1, "\(recorder.all)")
  }

  /// A write that fails for real (ENOSPC from /dev/full) is reported, not retried forever.
  func testARealWriteErrorIsReported() {
    let result = DurableFile.overwrite("/dev/full", at: 0, with: Array("{}".utf8), failpoints: FailpointRegistry())
    guard case .failure(let failure) = result else { return XCTFail("a write to /dev/full fails") }
    XCTAssertEqual(failure.operation, "write")
    XCTAssertEqual(failure.errno, ENOSPC)
  }

  func testAnIdentityKeepsTheMachineItNames() {
    let identity = ProcessIdentity(pid: 7, startTime: 8, bootID: "b", machine: "node-a")
    XCTAssertEqual(identity.machine, "node-a")
    XCTAssertNil(ProcessIdentity(pid: 7, startTime: 8, bootID: "b").machine)
  }

  func testReadyIsSentToSystemdByDefault() {
    XCTAssertTrue(LaunchOrganizer.Configuration(stateDirectory: "/nonexistent").notifyReady, "the documented default")
  }

  func testALaunchRecordKeepsWhenItsStopWasRequested() {
    let record = LaunchRecord(
      process: ProcessIdentity(pid: 7, startTime: 8, bootID: "b"), launchID: "l", phase: .launching, startedAt: 1,
      stopRequestedAt: 5)
    XCTAssertEqual(record.stopRequestedAt, 5)
  }

  /// A thread the app creates gets its alternate signal stack, and is told so.
  func testPreparingANewThreadSucceeds() {
    let prepared = Mutex<Bool?>(nil)
    let thread = Thread { prepared.withLock { $0 = CrashCapture.prepareCurrentThread() } }
    thread.start()
    let end = Date().addingTimeInterval(5)
    while prepared.withLock({ $0 }) == nil, Date() < end { usleep(1_000) }
    XCTAssertEqual(prepared.withLock { $0 }, true)
  }

  func testOnlyAClosurePolicyIsCustom() {
    XCTAssertFalse(ProtectionPolicy.threshold(2).isCustom)
    XCTAssertFalse(ProtectionPolicy.escalation([("clear caches", 2)]).isCustom)
    XCTAssertTrue(ProtectionPolicy.custom { $0 >= 3 }.isCustom)
  }

  func testAStatusMadeWithoutSayingIsNotReadyWhenDegraded() {
    XCTAssertEqual(LaunchStatus(mode: .degraded, since: Date()).readiness, .degraded)
    XCTAssertEqual(LaunchStatus(mode: .degraded, since: Date(), readyWhenDegraded: true).readiness, .ready)
  }
}
