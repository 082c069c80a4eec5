import Foundation
import XCTest

@testable import LaunchProtection

/// Rules of the launch path's faster code that a wrong turn would break without a crash: a
/// state file that cannot be read or written as usual, several organizers at exit, the
/// crash-report marker left alone when nothing asked for it, and the launch id's form.
final class LaunchPathRulesTests: XCTestCase {
  /// A state file whose read fails (here `/proc/self/mem`, whose offset 0 is never mapped:
  /// EIO) is reported unreadable with the read's errno and moved aside, and the launch goes on.
  func testAStateFileWhoseReadFailsIsReportedUnreadable() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    XCTAssertEqual(symlink("/proc/self/mem", directory + "/launch-state.json"), 0)
    let (count, problems) = StateStore(directory: directory).update { state in state.consecutiveCrashes }
    XCTAssertEqual(count, 0, "an empty state")
    guard case .unreadable(_, let code, let movedTo)? = problems.first else {
      return XCTFail("expected unreadable, got \(problems)")
    }
    XCTAssertEqual(code, EIO)
    XCTAssertNotNil(movedTo, "moved aside")
  }

  /// A tool's `read()` of such a file throws the read's errno (it moves nothing).
  func testReadingAStateFileWhoseReadFailsThrowsItsErrno() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    XCTAssertEqual(symlink("/proc/self/mem", directory + "/launch-state.json"), 0)
    do {
      _ = try StateStore(directory: directory).read()
      XCTFail("a failed read is an error")
    } catch {
      guard case .unreadable(_, let code, let movedTo) = error.problem else { return XCTFail("\(error)") }
      XCTAssertEqual(code, EIO)
      XCTAssertNil(movedTo, "read() moves nothing")
    }
  }

  /// A state file the process may only read (here a running executable: ETXTBSY for writing)
  /// is still read — and, being no state, reported corrupt and moved aside — rather than
  /// reported unreadable.
  func testAStateFileThatRefusesWritingIsStillRead() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let busy = launches.directory.file("busy-sleep")
    try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: busy)
    let sleeper = Process()
    sleeper.executableURL = URL(fileURLWithPath: busy)
    sleeper.arguments = ["30"]
    try sleeper.run()
    defer {
      sleeper.terminate()
      sleeper.waitUntilExit()
    }
    XCTAssertEqual(symlink(busy, directory + "/launch-state.json"), 0)
    XCTAssertEqual(open(directory + "/launch-state.json", O_RDWR), -1)
    XCTAssertEqual(errno, ETXTBSY, "the executable refuses writing while it runs")
    let (_, problems) = StateStore(directory: directory).update { $0.consecutiveCrashes = 1 }
    guard case .corrupt(_, let movedTo, _)? = problems.first else {
      return XCTFail("expected the file read and found corrupt, got \(problems)")
    }
    XCTAssertNotNil(movedTo)
    XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, 1, "a new file written")
  }

  /// Every launching organizer of the process is told about `exit`, not only the newest.
  func testExitTellsEveryTrackedOrganizer() {
    let launches = SimulatedLaunches()
    let first = launches.organizer()
    let second = launches.organizer()
    ExitTracker.shared.track(first, launchID: "first")
    ExitTracker.shared.track(second, launchID: "second")
    defer {
      ExitTracker.shared.untrack(first)
      ExitTracker.shared.untrack(second)
    }
    let tracked = ExitTracker.shared.trackedOrganizers()
    XCTAssertTrue(tracked.contains { $0 === first }, "the first one")
    XCTAssertTrue(tracked.contains { $0 === second }, "the second one")
    ExitTracker.shared.untrack(second)
    XCTAssertTrue(ExitTracker.shared.trackedOrganizers().contains { $0 === first }, "the first one stays")
  }

  /// With no marker and the same build, a launch leaves the directory alone: a report there
  /// that no handler marked (one it cannot read, say) gets no marker from the launch either.
  func testALaunchWithoutAMarkerLeavesTheReportsAlone() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    let first = launches.organizer()
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    first.launchingFinished()
    try Data("not a report".utf8).write(to: URL(fileURLWithPath: directory + "/crash-9-9.json"))
    let next = launches.organizer()
    next.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/" + CrashReports.markerName))
    XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/crash-9-9.json"), "untouched")
  }

  /// A launch id is a version 4 UUID in the uppercase form `UUID().uuidString` gives (state
  /// files written by 0.1.0 hold such ids, and tools may parse them).
  func testALaunchIDIsAnUppercaseVersion4UUID() {
    var seen: Set<String> = []
    for _ in 0..<50 {
      let id = LaunchOrganizer.randomLaunchID()
      XCTAssertTrue(seen.insert(id).inserted, "every id is new: \(id)")
      XCTAssertNotNil(UUID(uuidString: id), id)
      XCTAssertEqual(id, id.uppercased())
      let groups = id.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
      XCTAssertEqual(groups, [8, 4, 4, 4, 12], id)
      XCTAssertEqual(Array(id)[14], "4", "version 4")
      XCTAssertTrue("89AB".contains(Array(id)[19]), "RFC 4122 variant")
    }
  }

  /// `/proc/<pid>/stat`'s start time is read digit by digit: every digit counts, anything else
  /// (or too many digits) is no number.
  func testProcStatNumbersAreReadDigitByDigit() {
    XCTAssertEqual(SystemProcessFacts.decimal(Array("1234567890"[...].utf8)[...]), 1_234_567_890)
    XCTAssertEqual(SystemProcessFacts.decimal(Array("9".utf8)[...]), 9)
    XCTAssertEqual(SystemProcessFacts.decimal(Array("0".utf8)[...]), 0)
    XCTAssertEqual(SystemProcessFacts.decimal(Array("18446744073709551615".utf8)[...]), UInt64.max)
    XCTAssertNil(SystemProcessFacts.decimal(Array("18446744073709551616".utf8)[...]), "overflow")
    XCTAssertNil(SystemProcessFacts.decimal([][...]), "empty")
    XCTAssertNil(SystemProcessFacts.decimal(Array("12a".utf8)[...]))
    XCTAssertNil(SystemProcessFacts.decimal(Array("-1".utf8)[...]))
    XCTAssertNil(SystemProcessFacts.decimal(Array("1/".utf8)[...]), "the byte below 0")
    XCTAssertNil(SystemProcessFacts.decimal(Array("1:".utf8)[...]), "the byte above 9")
    // And a real process: this one's start time, as the kernel counts it, is what it read.
    XCTAssertEqual(SystemProcessFacts.startTime(of: getpid()), SystemProcessFacts.currentIdentity.startTime)
    XCTAssertGreaterThan(SystemProcessFacts.currentIdentity.startTime, 0)
  }

  /// The boot id is the kernel's, without its newline: what tells a reboot from a crash.
  func testTheBootIDIsTheKernelsWithoutItsNewline() throws {
    let kernel = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
    XCTAssertEqual(SystemProcessFacts.bootID(), kernel.trimmingCharacters(in: .whitespacesAndNewlines))
    XCTAssertEqual(SystemProcessFacts.bootID().count, 36, "a UUID")
  }
}
