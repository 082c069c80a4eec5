import Foundation
import XCTest

@testable import LaunchProtection

/// The store keeps the lock's and the state file's descriptors between updates. What that must
/// not break: concurrent updates of one store and of two stores exclude each other, a state
/// file renamed over by another process is read anew, and a forked child never shares the
/// parent's lock.
final class KeptDescriptorTests: XCTestCase {
  private func directory() throws -> String {
    let path = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  private func count(_ directory: String) throws -> Int {
    try XCTUnwrap(try StateStore(directory: directory).read()).consecutiveCrashes
  }

  /// Four threads, two on one store (which share its kept descriptors in turn) and two on
  /// their own stores, each adding 1 250 times: every increment is kept.
  func testConcurrentUpdatesLoseNoIncrement() throws {
    let path = try directory()
    let shared = StateStore(directory: path)
    let stores = [shared, shared, StateStore(directory: path), StateStore(directory: path)]
    DispatchQueue.concurrentPerform(iterations: stores.count) { index in
      for _ in 0..<1_250 { _ = stores[index].update { $0.consecutiveCrashes += 1 } }
    }
    XCTAssertEqual(try count(path), 5_000)
  }

  /// Another process's rename of a new state file between two updates: the second update reads
  /// the new file through a new descriptor, not the old inode through the kept one.
  func testAStateFileRenamedOverBetweenUpdatesIsReadAnew() throws {
    let path = try directory()
    let store = StateStore(directory: path)
    _ = store.update { $0.consecutiveCrashes = 1 }
    var replaced = LaunchState()
    replaced.consecutiveCrashes = 7
    XCTAssertNil(StateStore(directory: path, durability: .powerLoss).overwrite(replaced), "a rename over it")
    let (seen, problems) = store.update { state -> Int in
      defer { state.consecutiveCrashes += 1 }
      return state.consecutiveCrashes
    }
    XCTAssertEqual(problems, [])
    XCTAssertEqual(seen, 7, "the renamed file, not the kept descriptor's old inode")
    XCTAssertEqual(try count(path), 8)
  }

  /// A forked child updating while the parent does: the child's inherited copies share the
  /// parent's open file (and flock), so it must open its own; no increment is lost.
  func testAForkedChildNeverSharesTheParentsLock() throws {
    let path = try directory()
    let store = StateStore(directory: path)
    _ = store.update { $0.consecutiveCrashes = 0 }  // the descriptors are now kept
    let child = fork()
    if child == 0 {
      for _ in 0..<500 { _ = store.update { $0.consecutiveCrashes += 1 } }
      _exit(0)
    }
    XCTAssertGreaterThan(child, 0)
    for _ in 0..<500 { _ = store.update { $0.consecutiveCrashes += 1 } }
    var status: Int32 = 0
    XCTAssertEqual(waitpid(child, &status, 0), child)
    XCTAssertEqual(status, 0, "the child exited 0")
    XCTAssertEqual(try count(path), 1_000)
  }
}
