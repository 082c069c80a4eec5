import Foundation
import XCTest

@testable import LaunchProtection

/// A state file that cannot be read or written as usual: the store reports it with the cause
/// (or reads what it can), moves it aside when a launch needs a new one, and the launch goes on.
final class UnreadableStateFileTests: XCTestCase {
  /// A state file that is a symlink (here to `/proc/self/mem`, whose read would fail with EIO)
  /// is never followed: refused as `wrongFileType`, the link moved aside, and the launch goes on.
  func testAStateFileThatIsASymlinkIsRefusedNotFollowed() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    XCTAssertEqual(symlink("/proc/self/mem", directory + "/launch-state.json"), 0)
    let (count, problems) = StateStore(directory: directory).update { state in state.consecutiveCrashes }
    XCTAssertEqual(count, 0, "an empty state")
    guard let problem = problems.first, problem.code == .wrongFileType else {
      return XCTFail("expected wrong_file_type, got \(problems)")
    }
    let moved = try XCTUnwrap(problem.movedTo, "moved aside")
    XCTAssertEqual(
      try FileManager.default.destinationOfSymbolicLink(atPath: moved), "/proc/self/mem", "the link itself")
  }

  /// A tool's `read()` of such a file throws the refusal (it moves nothing).
  func testReadingAStateFileThatIsASymlinkThrowsTheRefusal() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    XCTAssertEqual(symlink("/proc/self/mem", directory + "/launch-state.json"), 0)
    do {
      _ = try StateStore(directory: directory).read()
      XCTFail("a symlink is refused")
    } catch {
      XCTAssertEqual(error.problem.code, .wrongFileType, "\(error)")
      XCTAssertNil(error.problem.movedTo, "read() moves nothing")
    }
  }

  /// A state file the process may only read (here a running executable: ETXTBSY for writing)
  /// is still read — and, being no state, reported corrupt and moved aside — rather than
  /// reported unreadable.
  func testAStateFileThatRefusesWritingIsStillRead() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let busy = directory + "/launch-state.json"
    try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: busy)
    let sleeper = Process()
    sleeper.executableURL = URL(fileURLWithPath: busy)
    sleeper.arguments = ["30"]
    try sleeper.run()
    defer {
      sleeper.terminate()
      sleeper.waitUntilExit()
    }
    XCTAssertEqual(open(busy, O_RDWR), -1)
    XCTAssertEqual(errno, ETXTBSY, "the executable refuses writing while it runs")
    let (_, problems) = StateStore(directory: directory).update { $0.consecutiveCrashes = 1 }
    guard let problem = problems.first, problem.code == .corrupt else {
      return XCTFail("expected the file read and found corrupt, got \(problems)")
    }
    XCTAssertNotNil(problem.movedTo)
    XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, 1, "a new file written")
  }
}
