import XCTest

@testable import ChaosBench

/// Crash-to-reap runs its setups in turn; a crash is slower right after some setups (the Swift
/// runtime's backtracer), so the orders must give every setup every predecessor alike.
final class CrashToReapOrderTests: XCTestCase {
  func testConsecutiveNumbersRunThroughEveryOrderOnce() {
    for count in 1...5 {
      let items = Array(0..<count)
      let factorial = (1...count).reduce(1, *)
      let orders = (0..<factorial).map { CrashToReapBenchmark.ordering(items, number: $0) }
      XCTAssertEqual(Set(orders).count, factorial, "\(count) items: every order once")
      for order in orders { XCTAssertEqual(order.sorted(), items, "a permutation of \(count) items") }
      XCTAssertEqual(CrashToReapBenchmark.ordering(items, number: factorial + 1), orders[1 % factorial], "cyclic")
    }
  }

  func testEachSetupFollowsEachOtherEquallyOften() {
    let setups = ["ours", "swift runtime", "no handler", "glibc backtrace"]
    var follows: [String: Int] = [:]
    for number in 0..<24 {
      let order = CrashToReapBenchmark.ordering(setups, number: number)
      for index in 1..<order.count { follows["\(order[index - 1]) → \(order[index])", default: 0] += 1 }
    }
    XCTAssertEqual(follows.count, 12, "\(follows)")
    XCTAssertEqual(Set(follows.values), [6], "\(follows)")
  }
}
