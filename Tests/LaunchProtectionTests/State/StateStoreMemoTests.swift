import Failpoints
import Foundation
import XCTest

@testable import LaunchProtection

/// The store answers a read of the bytes it last wrote from memory; any other bytes are decoded.
final class StateStoreMemoTests: XCTestCase {
  private func directory() throws -> String {
    let path = NSTemporaryDirectory() + "state-memo-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
  }

  func testAWriteByAnotherStoreInBetweenIsRead() throws {
    let path = try directory()
    let mine = StateStore(directory: path)
    let other = StateStore(directory: path)
    XCTAssertEqual(mine.update { $0.consecutiveCrashes = 5 }.problems, [])
    XCTAssertEqual(mine.update { $0.consecutiveCrashes }.result, 5, "its own write")
    XCTAssertEqual(other.update { $0.consecutiveCrashes = 7 }.problems, [])
    XCTAssertEqual(mine.update { $0.consecutiveCrashes }.result, 7, "the other store's write, not the memo")
    XCTAssertEqual(try mine.read()?.consecutiveCrashes, 7)
  }

  func testAStateOutsideTheRangeIsStillRejectedAfterItsOwnWrite() throws {
    let path = try directory()
    let store = StateStore(directory: path)
    var state = LaunchState()
    state.consecutiveCrashes = -1
    XCTAssertNil(store.overwrite(state))
    let (count, problems) = store.update { $0.consecutiveCrashes }
    XCTAssertEqual(count, 0, "an empty state after moving the file aside")
    guard let problem = problems.first as StateProblem?, problem.code == .corrupt else { return XCTFail("\(problems)") }
    let movedTo = problem.movedTo
    let detail = problem.detail
    XCTAssertNotNil(movedTo)
    XCTAssertTrue(detail.contains("consecutiveCrashes -1 outside"), detail)
  }
}
