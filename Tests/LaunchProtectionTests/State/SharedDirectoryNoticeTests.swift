import Foundation
import Synchronization
import TestSupport
import XCTest

@testable import LaunchProtection

/// What a shared (other-writable) state directory makes the library say (issue 59): the move
/// to `private-<uid>` once per process, at notice; another user's state file at the top once
/// per file, however many processes start; and the app is told the directory actually used.
final class SharedDirectoryNoticeTests: XCTestCase {
  private let scratch = TemporaryDirectory("shared-notice")

  /// One start of the app, as a fresh process makes it: an organizer on `directory`, its
  /// launch and its end. Returns what it told.
  @discardableResult
  private func start(on directory: String, _ body: (LaunchOrganizer) -> Void = { _ in }) -> [LaunchProtectionEvent] {
    var configuration = SimulatedLaunches().configuration()
    configuration.stateDirectory = directory
    let organizer = LaunchOrganizer(configuration: configuration)
    let told = Mutex<[LaunchProtectionEvent]>([])
    organizer.observe { observation in
      if let event = observation.event { told.withLock { $0.append(event) } }
    }
    organizer.finishLaunching(policy: .threshold(2), launch: {}, protect: { _ in })
    organizer.launchingFinished()
    body(organizer)
    return told.withLock { $0 }
  }

  private func shared() -> String {
    let path = scratch.file("shared")
    XCTAssertEqual(mkdir(path, 0o700), 0)
    XCTAssertEqual(chmod(path, 0o777), 0)
    return path
  }

  func testTheMoveIsSaidOncePerProcessAndTheAppToldTheDirectory() throws {
    let directory = shared()
    let own = directory + "/private-\(geteuid())"
    let told = start(on: directory) { XCTAssertEqual($0.stateDirectoryInUse, own) }
    let said = told.filter { $0.kind == .privateStateDirectory }
    XCTAssertEqual(said.count, 1, "\(told)")
    XCTAssertEqual(told.filter { $0.kind == .stateProblem }, [])
    XCTAssertEqual(said.first?.stateDirectory, own)
    let reason = try XCTUnwrap(said.first?.stateDirectoryReason)
    XCTAssertTrue(reason.contains("other users can write \(directory)") && reason.contains("mode 0777"), reason)
    XCTAssertTrue("\(said[0])".contains(own), "\(said[0])")

    let again = start(on: directory) { XCTAssertEqual($0.stateDirectoryInUse, own) }
    XCTAssertEqual(again.filter { $0.kind == .privateStateDirectory }, [], "said once per process")
  }

  func testAnUnsharedDirectorySaysNothingAndIsTheOneInUse() throws {
    let directory = scratch.file("own")
    let told = start(on: directory) { XCTAssertEqual($0.stateDirectoryInUse, directory) }
    XCTAssertEqual(told.filter { $0.kind == .privateStateDirectory }, [])
  }

  func testAnotherUsersTopStateFileIsReportedOncePerFile() throws {
    guard geteuid() == 0 else { throw XCTSkip("needs root, to give the file to another user") }
    let directory = shared()
    let top = directory + "/launch-state.json"
    func plant(_ text: String) {
      XCTAssertTrue(FileManager.default.createFile(atPath: top, contents: Data(text.utf8)))
      XCTAssertEqual(chown(top, 65534, 65534), 0)
    }
    func reported() -> [UInt32?] {
      start(on: directory).compactMap(\.stateProblem).filter { $0.path == top }.map(\.owner)
    }
    plant(#"{"consecutiveCrashes":5}"#)
    XCTAssertEqual(reported(), [65534], "the first start that finds it says it")
    XCTAssertEqual(reported(), [], "the same file again: said already")
    XCTAssertEqual(reported(), [])
    plant(#"{"consecutiveCrashes":6}"#)
    XCTAssertEqual(reported(), [65534], "rewritten: said again")
    XCTAssertEqual(reported(), [])
    var info = stat()
    let record = directory + "/private-\(geteuid())/" + StateDirectoryNotices.reportedName
    XCTAssertEqual(lstat(record, &info), 0)
    XCTAssertEqual(info.st_mode & 0o7777, 0o600, "the record is private")
  }

  func testATopStateFileIsSaidEvenWhenCrashCaptureOpenedTheDirectoryFirst() throws {
    guard geteuid() == 0 else { throw XCTSkip("needs root, to give the file to another user") }
    let directory = shared()
    let top = directory + "/launch-state.json"
    XCTAssertTrue(FileManager.default.createFile(atPath: top, contents: Data("{}".utf8)))
    XCTAssertEqual(chown(top, 65534, 65534), 0)
    // What CrashCapture.install does before the launch: open it, and drop the notices.
    var dropped: [StateProblem] = []
    if case .success(let opened?) = StateDirectory.open(directory, create: true, notices: &dropped) { close(opened.fd) }
    XCTAssertEqual(dropped.count, 1)
    let told = start(on: directory).compactMap(\.stateProblem).filter { $0.path == top }
    XCTAssertEqual(told.count, 1, "the launch still says it")
  }
}
