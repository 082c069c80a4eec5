import Foundation
import TestSupport
import XCTest

@testable import LaunchProtection

/// A symlink as the state directory (issue 60): followed only when it is root's or this uid's,
/// in a directory of root's or this uid's that no other user can write (systemd's `chase()`
/// with `CHASE_SAFE`); its target is then held to the state directory's own rule. Real links,
/// real owners (root gives them to `nobody` with `lchown`).
final class TrustedLinkTests: XCTestCase {
  private let scratch = TemporaryDirectory("trusted-link")

  /// A directory in the scratch one, made with `mode`.
  private func directory(_ name: String, mode: mode_t = 0o700) -> String {
    let path = scratch.file(name)
    XCTAssertEqual(mkdir(path, 0o700), 0, path)
    XCTAssertEqual(chmod(path, mode), 0, path)
    return path
  }

  private func link(_ path: String, to target: String) {
    XCTAssertEqual(symlink(target, path), 0, "\(path) -> \(target)")
  }

  private func requireRoot() throws {
    guard geteuid() == 0 else { throw XCTSkip("needs root, to give links to another user") }
  }

  private func isLink(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
  }

  private func entries(_ path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? ["<unreadable>"]
  }

  func testATrustedLinkIsFollowedAndItsTargetHoldsTheState() throws {
    XCTAssertEqual(chmod(scratch.path, 0o755), 0)
    let target = directory("srv-app")
    let configured = scratch.file("app")
    link(configured, to: "srv-app")  // relative: to the link's own directory
    let store = StateStore(directory: configured)
    let (_, problems) = store.update { $0.consecutiveCrashes = 2 }
    XCTAssertEqual(problems, [])
    XCTAssertEqual(store.statePath, target + "/launch-state.json", "the directory actually opened")
    XCTAssertTrue(isLink(configured), "the link stays a link")
    XCTAssertTrue(FileManager.default.fileExists(atPath: target + "/launch-state.json"))
    XCTAssertEqual(try StateStore(directory: configured).read()?.consecutiveCrashes, 2, "read through it too")
    XCTAssertEqual(try StateStore(directory: configured + "/").read()?.consecutiveCrashes, 2, "with a trailing slash")
  }

  func testAChainOfTrustedLinksIsFollowedUpToTheBound() throws {
    let target = directory("srv-app")
    var previous = target
    for index in 1...TrustedLink.maximumLinks {
      let path = scratch.file("link-\(index)")
      link(path, to: previous)
      previous = path
    }
    let (_, problems) = StateStore(directory: previous).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems, [], "\(TrustedLink.maximumLinks) links are followed")
    let further = scratch.file("one-more")
    link(further, to: previous)
    let (_, refused) = StateStore(directory: further).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(refused.map(\.code), [.wrongFileType], "\(refused)")
  }

  func testALoopOfLinksIsRefusedNotFollowedForever() throws {
    link(scratch.file("a"), to: "b")
    link(scratch.file("b"), to: "a")
    let (_, problems) = StateStore(directory: scratch.file("a")).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems.map(\.code), [.wrongFileType], "\(problems)")
  }

  func testADanglingTrustedLinkHasItsTargetMadePrivate() throws {
    let configured = scratch.file("app")
    link(configured, to: scratch.file("moved/app"))
    let (_, problems) = StateStore(directory: configured).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems, [])
    var info = stat()
    XCTAssertEqual(stat(scratch.file("moved/app"), &info), 0)
    XCTAssertEqual(info.st_mode & 0o7777, 0o700)
    XCTAssertTrue(FileManager.default.fileExists(atPath: scratch.file("moved/app/launch-state.json")))
  }

  func testALinkToAFileIsNotADirectory() throws {
    XCTAssertTrue(FileManager.default.createFile(atPath: scratch.file("file"), contents: Data("x".utf8)))
    link(scratch.file("app"), to: "file")
    let (_, problems) = StateStore(directory: scratch.file("app")).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems.map(\.code), [.wrongFileType], "\(problems)")
    XCTAssertEqual(try String(contentsOfFile: scratch.file("file"), encoding: .utf8), "x")
  }

  func testALinkOfAnotherUserIsNotFollowed() throws {
    try requireRoot()
    let target = directory("srv-app")
    let configured = scratch.file("app")
    link(configured, to: target)
    XCTAssertEqual(lchown(configured, 65534, 65534), 0)
    for path in [configured, configured + "/"] {
      let (_, problems) = StateStore(directory: path).update { $0.consecutiveCrashes = 1 }
      XCTAssertEqual(problems.map(\.code), [.untrusted], path)
      XCTAssertEqual(problems.first?.owner, 65534, path)
      XCTAssertTrue(problems.first?.description.contains("symlink owned by uid 65534") == true, "\(problems)")
    }
    XCTAssertEqual(entries(target), [], "nothing written through it")
  }

  func testALinkInADirectoryOthersCanWriteIsNotFollowed() throws {
    let target = directory("srv-app")
    let shared = directory("shared", mode: 0o777)
    link(shared + "/app", to: target)
    let (_, problems) = StateStore(directory: shared + "/app").update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems.map(\.code), [.untrusted], "\(problems)")
    XCTAssertEqual(problems.first.flatMap(\.mode).map { $0 & 0o7777 }, 0o777, "the holding directory's mode")
    XCTAssertTrue(problems.first?.description.contains("which other users can write") == true, "\(problems)")
    XCTAssertEqual(entries(target), [], "nothing written through it")
  }

  func testALinkInADirectoryOfAnotherUserIsNotFollowed() throws {
    try requireRoot()
    let target = directory("srv-app")
    let foreign = directory("foreign", mode: 0o755)
    link(foreign + "/app", to: target)
    XCTAssertEqual(chown(foreign, 65534, 65534), 0)
    let (_, problems) = StateStore(directory: foreign + "/app").update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems.map(\.code), [.untrusted], "\(problems)")
    XCTAssertEqual(problems.first?.owner, 65534)
    XCTAssertEqual(entries(target), [], "nothing written through it")
  }

  func testTheTargetIsHeldToTheStateDirectorysOwnRule() throws {
    try requireRoot()
    let foreign = directory("foreign", mode: 0o755)
    XCTAssertEqual(chown(foreign, 65534, 65534), 0)
    link(scratch.file("app"), to: foreign)
    let (_, problems) = StateStore(directory: scratch.file("app")).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems.map(\.code), [.untrusted], "another user's directory, reached through a trusted link")
    XCTAssertEqual(problems.first?.path, foreign)
    XCTAssertEqual(entries(foreign), [])
  }

  func testALinkToASharedDirectoryKeepsTheStateInItsPrivateSubdirectory() throws {
    let shared = directory("emptydir", mode: 0o777)
    link(scratch.file("app"), to: shared)
    let store = StateStore(directory: scratch.file("app"))
    let (_, problems) = store.update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems, [])
    XCTAssertEqual(store.statePath, shared + "/private-\(geteuid())/launch-state.json")
  }
}
