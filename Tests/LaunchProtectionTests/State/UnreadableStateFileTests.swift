import Foundation
import XCTest

@testable import LaunchProtection

/// A state file that cannot be read or written as usual: the store reports it with the cause
/// (or reads what it can), moves it aside when a launch needs a new one, and the launch goes on.
final class UnreadableStateFileTests: XCTestCase {
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
}
