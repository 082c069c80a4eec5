import Failpoints
import Foundation
import Synchronization
import XCTest

@testable import LaunchProtection

final class StateStoreTests: XCTestCase {
  /// Runs a launch that must reach its launch closure, and returns the organizer and its events.
  private func launchMustRun(_ launches: SimulatedLaunches, finish: Bool = false) -> (LaunchOrganizer, Recorder) {
    let recorder = Recorder()
    let organizer = launches.organizer(observe: recorder)
    let ran = Mutex(false)
    organizer.finishLaunching(
      policy: .threshold(1000),
      launch: {
        ran.withLock { $0 = true }
        if finish { organizer.launchingFinished() }
      }, protect: { _ in })
    XCTAssertTrue(ran.withLock { $0 }, "the launch must run whatever the state")
    return (organizer, recorder)
  }

  private func writeStateFile(_ launches: SimulatedLaunches, _ text: String) throws {
    try FileManager.default.createDirectory(atPath: launches.stateDirectory, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: launches.stateDirectory + "/launch-state.json"))
  }

  private func asideFiles(_ launches: SimulatedLaunches, containing label: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: launches.stateDirectory)
      .filter { $0.hasPrefix("launch-state.json.\(label)") }
  }

  func testStateFileIsVersionedJSONAndReadBack() throws {
    let launches = SimulatedLaunches()
    _ = launchMustRun(launches)
    let text = try String(contentsOfFile: launches.stateDirectory + "/launch-state.json", encoding: .utf8)
    XCTAssertTrue(text.hasPrefix("{\"slot\":\"launch-state\",\"seq\":\"0000000000000001\""), text)
    XCTAssertTrue(text.contains("\"version\":1"), text)
    let state = try XCTUnwrap(try launches.state())
    XCTAssertEqual(state.launchesInProgress.count, 1)
    XCTAssertEqual(state.executableID, "build-1")
  }

  func testCorruptStateIsMovedAsideAndTheLaunchProceedsFromZero() throws {
    let launches = SimulatedLaunches()
    let garbage = "{\"version\": 1, \"consecutiveCrashes\": \u{0}garbage"
    try writeStateFile(launches, garbage)
    let (organizer, recorder) = launchMustRun(launches)
    XCTAssertEqual(organizer.status.decision?.count, 0)
    XCTAssertEqual(recorder.count(of: "state_problem corrupt"), 1)
    let aside = try asideFiles(launches, containing: "corrupt")
    XCTAssertEqual(aside.count, 1)
    XCTAssertEqual(
      try String(contentsOfFile: launches.stateDirectory + "/" + aside[0], encoding: .utf8), garbage, "nothing lost")
    guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .corrupt else {
      return XCTFail("expected corrupt")
    }
    let movedTo = problem.movedTo
    let detail = problem.detail
    XCTAssertNotNil(movedTo)
    XCTAssertTrue(detail.contains("not valid JSON"), detail)
    // And the new state is sound again.
    XCTAssertEqual(try launches.state()?.launchesInProgress.count, 1)
  }

  func testTruncatedAndEmptyStateFilesAreCorrupt() throws {
    for text in ["", "{\"version\": 1, \"consecu", "{\"version\": 1}", "[1, 2, 3]"] {
      let launches = SimulatedLaunches()
      try writeStateFile(launches, text)
      let (organizer, _) = launchMustRun(launches)
      guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .corrupt else {
        return XCTFail(
          "\(text.debugDescription) should be reported corrupt, got \(String(describing: organizer.status.decision?.problems))"
        )
      }
      XCTAssertEqual(try asideFiles(launches, containing: "corrupt").count, 1, text)
    }
  }

  func testMissingFieldIsNamedInTheReport() throws {
    let launches = SimulatedLaunches()
    try writeStateFile(launches, "{\"version\": 1, \"consecutiveCrashes\": 3}")
    let (organizer, _) = launchMustRun(launches)
    guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .corrupt else {
      return XCTFail("expected corrupt")
    }
    let detail = problem.detail
    XCTAssertTrue(detail.contains("launchesInProgress"), detail)
  }

  func testFutureVersionIsMovedAsideNotOverwritten() throws {
    let launches = SimulatedLaunches()
    let future = "{\"version\": 7, \"somethingNew\": true}"
    try writeStateFile(launches, future)
    let (organizer, recorder) = launchMustRun(launches)
    XCTAssertEqual(recorder.count(of: "state_problem future_version"), 1)
    guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .futureVersion
    else {
      return XCTFail()
    }
    let found = problem.foundVersion
    let supported = problem.supportedVersion
    XCTAssertEqual(found, 7)
    XCTAssertEqual(supported, LaunchState.currentVersion)
    let aside = try asideFiles(launches, containing: "v7")
    XCTAssertEqual(aside.count, 1)
    XCTAssertEqual(try String(contentsOfFile: launches.stateDirectory + "/" + aside[0], encoding: .utf8), future)
  }

  func testADirectoryAsTheStateFileIsRefusedAndMovedAside() throws {
    let launches = SimulatedLaunches()
    // A directory where the file should be: refused at open (EISDIR), never read or written.
    try FileManager.default.createDirectory(
      atPath: launches.stateDirectory + "/launch-state.json", withIntermediateDirectories: true)
    let (organizer, recorder) = launchMustRun(launches)
    XCTAssertEqual(recorder.count(of: "state_problem wrong_file_type"), 1)
    guard let problem = organizer.status.decision?.problems.first, problem.code == .wrongFileType else {
      return XCTFail("\(String(describing: organizer.status.decision?.problems))")
    }
    XCTAssertNotNil(problem.movedTo)
    XCTAssertEqual(try launches.state()?.launchesInProgress.count, 1, "a fresh state was written after moving it aside")
  }

  func testUnwritableDirectoryNeverBlocksTheLaunch() throws {
    let launches = SimulatedLaunches()
    // The state directory path is a regular file: refused (wrong_file_type), never written.
    try Data("not a directory".utf8).write(to: URL(fileURLWithPath: launches.stateDirectory))
    let (organizer, recorder) = launchMustRun(launches, finish: true)
    XCTAssertEqual(organizer.status.decision?.count, 0)
    XCTAssertEqual(recorder.count(of: "state_problem wrong_file_type"), 1, "reported once, by the launch")
    XCTAssertEqual(organizer.currentMode, .finished)
    XCTAssertEqual(
      try String(contentsOfFile: launches.stateDirectory, encoding: .utf8), "not a directory", "nothing lost")
  }

  func testInjectedIOErrorsAtEachStepLeaveTheOldStateIntact() throws {
    // `.processCrash` rewrites a slot in place (one step, store.write); `.powerLoss` replaces
    // the file (store.write, store.fsync of the temp file, store.rename).
    for (durability, point, errnoName, code) in [
      (Durability.processCrash, "store.write", "EIO", EIO), (.powerLoss, "store.write", "EIO", EIO),
      (.powerLoss, "store.fsync", "ENOSPC", ENOSPC), (.powerLoss, "store.rename", "EIO", EIO),
    ] {
      let label = "\(durability) \(point)"
      let launches = SimulatedLaunches(durability: durability)
      // Two crashed launches persisted normally.
      _ = launchMustRun(launches)
      _ = launchMustRun(launches)
      let before = try String(contentsOfFile: launches.stateDirectory + "/launch-state.json", encoding: .utf8)
      try launches.failpoints.configure("\(point)=return(\(errnoName))")
      let (organizer, recorder) = launchMustRun(launches)
      launches.failpoints.removeAll()
      XCTAssertEqual(organizer.status.decision?.count, 2, label)
      XCTAssertEqual(recorder.count(of: "state_problem write_failed"), 1, label)
      guard let problem = organizer.status.decision?.problems.first as StateProblem?, problem.code == .writeFailed
      else {
        return XCTFail(label)
      }
      let operation = problem.operation
      let reported = problem.errno
      XCTAssertEqual(operation, String(point.dropFirst("store.".count)), label)
      XCTAssertEqual(reported, code, label)
      let after = try String(contentsOfFile: launches.stateDirectory + "/launch-state.json", encoding: .utf8)
      XCTAssertEqual(after, before, "\(label): a failed write must leave the previous state untouched")
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: launches.stateDirectory).filter {
        $0.contains(".tmp-")
      }
      XCTAssertEqual(leftovers, [], "\(label): temp file cleaned up")
    }
  }

  func testReadOfAMissingStateIsNil() throws {
    let launches = SimulatedLaunches()
    XCTAssertNil(try launches.state())
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
    guard let problem = problems.first as StateProblem?, problem.code == .lockUnavailable else {
      return XCTFail("\(problems)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: store.statePath), "nothing written")
  }

  /// A state directory whose parents do not exist yet (`/var/lib/app/launch` on a fresh
  /// machine) is created with them, and the state written there without a problem.
  func testAStateDirectoryIsCreatedWithItsParents() throws {
    let directory = SimulatedLaunches().stateDirectory + "/var/lib/app/launch"
    let (_, problems) = StateStore(directory: directory).update { $0.consecutiveCrashes = 2 }
    XCTAssertEqual(problems, [])
    XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, 2)
  }

  /// A write that fails for real (ENOSPC from /dev/full) is reported, not retried forever.
  func testARealWriteErrorIsReported() {
    let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
    defer { close(full) }
    let result = DurableFile.overwrite(full, at: 0, with: Array("{}".utf8), failpoints: FailpointRegistry())
    guard let failure = result else { return XCTFail("a write to /dev/full fails") }
    XCTAssertEqual(failure.operation, "write")
    XCTAssertEqual(failure.errno, ENOSPC)
  }
}
