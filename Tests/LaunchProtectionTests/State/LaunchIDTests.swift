import Foundation
import XCTest

@testable import LaunchProtection

/// The launch id each launch gets and the state file keeps.
final class LaunchIDTests: XCTestCase {
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
}
