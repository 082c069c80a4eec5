import Foundation
import TestSupport
import XCTest

@testable import ChaosKit

/// A `user:` that cannot enter a directory above what it is given (a checkout under a 0700
/// home) is named with that directory, instead of the spawn's "Permission denied".
final class UserReachTests: XCTestCase {
  private let nobody = RunAs(uid: 65534, gid: 65534, name: "nobody")

  func testAClosedDirectoryAboveThePathIsNamed() throws {
    let home = TemporaryDirectory("user-reach")
    chmod(home.path, 0o700)
    let target = home.file("bin/chaos-target")
    try FileManager.default.createDirectory(atPath: home.file("bin"), withIntermediateDirectories: true)
    XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: Data("#!/bin/sh\n".utf8)))
    chmod(target, 0o755)
    let problem = try XCTUnwrap(UserReach.problem(nobody, path: target, execute: true))
    let closed = URL(fileURLWithPath: home.path).standardizedFileURL.path
    XCTAssertTrue(problem.hasPrefix("user: nobody (uid 65534, gid 65534) cannot reach \(target): "), problem)
    XCTAssertTrue(problem.contains(": \(closed) (mode 0700, owner "), problem)

    chmod(home.path, 0o755)
    XCTAssertNil(UserReach.problem(nobody, path: target, execute: true), "a 0755 path lets it in")
    chmod(target, 0o700)
    XCTAssertTrue(UserReach.problem(nobody, path: target, execute: true)?.contains("cannot execute") == true)
    XCTAssertNil(UserReach.problem(RunAs(uid: 0, gid: 0, name: "root"), path: target, execute: true))
  }
}
