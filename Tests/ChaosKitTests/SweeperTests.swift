import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

final class SweeperTests: XCTestCase {
  /// Makes a work directory of the spare shape with files in both directories.
  private func makeWorkDirectory(_ path: String) throws {
    for directory in ["state", "launch-1"] {
      try FileManager.default.createDirectory(atPath: path + "/" + directory, withIntermediateDirectories: true)
    }
    for file in ["state/launch-state.json", "state/crash-1-2.json", "launch-1/stdout.txt", "launch-1/events.ndjson"] {
      XCTAssertTrue(FileManager.default.createFile(atPath: path + "/" + file, contents: Data("x".utf8)))
    }
  }

  /// Waits (the sweeper works on its own thread) until a spare can be renamed to `path`.
  private func reuse(_ sweeper: Sweeper, as path: String) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if sweeper.reuse(as: path) { return true }
      usleep(2_000)
    }
    return false
  }

  func testAPassedWorkDirectoryComesBackEmptyForTheNextScenario() throws {
    let root = TemporaryDirectory()
    let sweeper = Sweeper()
    try makeWorkDirectory(root.file("first"))
    sweeper.sweep(root.file("first"))
    XCTAssertFalse(FileManager.default.fileExists(atPath: root.file("first")), "moved aside at once")
    XCTAssertTrue(reuse(sweeper, as: root.file("second")))
    XCTAssertEqual(FileTree.entries(root.file("second"))?.sorted(), ["launch-1", "state"])
    XCTAssertEqual(FileTree.entries(root.file("second/state")), [], "no file of the first scenario")
    XCTAssertEqual(FileTree.entries(root.file("second/launch-1")), [], "files are removed, never reused")
    XCTAssertFalse(sweeper.reuse(as: root.file("third")), "one spare was made, and it is taken")
    sweeper.finish()
    XCTAssertEqual(FileTree.entries(root.path)?.sorted(), ["second"])
  }

  func testOtherShapesAreRemovedNotKept() throws {
    let root = TemporaryDirectory()
    let sweeper = Sweeper()
    try makeWorkDirectory(root.file("two-launches"))
    try FileManager.default.createDirectory(
      atPath: root.file("two-launches/launch-2"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: root.file("no-state/launch-1"), withIntermediateDirectories: true)
    sweeper.sweep(root.file("two-launches"))
    sweeper.sweep(root.file("no-state"))
    sweeper.finish()
    XCTAssertFalse(sweeper.reuse(as: root.file("next")))
    XCTAssertEqual(FileTree.entries(root.path), [], "both removed, nothing left aside")
  }

  func testFinishRemovesTheSparesAndAFileHeldOpenNeverReachesTheNextScenario() throws {
    let root = TemporaryDirectory()
    let sweeper = Sweeper()
    try makeWorkDirectory(root.file("first"))
    // A process that outlived its scenario still holds its stdout open.
    let held = open(root.file("first/launch-1/stdout.txt"), O_WRONLY | O_APPEND)
    XCTAssertGreaterThanOrEqual(held, 0)
    defer { close(held) }
    sweeper.sweep(root.file("first"))
    XCTAssertTrue(reuse(sweeper, as: root.file("second")))
    XCTAssertEqual(write(held, "late", 4), 4)
    XCTAssertFalse(FileManager.default.fileExists(atPath: root.file("second/launch-1/stdout.txt")))
    try makeWorkDirectory(root.file("third"))
    sweeper.sweep(root.file("third"))
    sweeper.finish()
    XCTAssertEqual(FileTree.entries(root.path)?.sorted(), ["second"], "the unused spare is removed by finish")
  }
}
