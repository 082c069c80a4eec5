import Failpoints
import Foundation
import XCTest

@testable import LaunchProtection

/// A daemon started with its standard input closed gets descriptor 0 from its first `open`:
/// the state store must use it like any other descriptor (a `> 0` check would take the lock or
/// the state file for a failure) and close it like any other when a write fails, or every
/// failed write leaks a descriptor for the rest of the process's life.
final class ClosedStandardInputTests: XCTestCase {
  /// Runs `body` with descriptor 0 free, as in a daemon whose stdin is closed, then puts the
  /// test's stdin back. `zeroStillOpen` says whether body left something open as descriptor 0.
  private func withDescriptorZeroFree<T>(_ body: () throws -> T) rethrows -> (result: T, zeroStillOpen: Bool) {
    let saved = dup(0)
    XCTAssertGreaterThan(saved, 0)
    close(0)
    defer {
      dup2(saved, 0)
      close(saved)
    }
    let result = try body()
    return (result, fcntl(0, F_GETFD) != -1)
  }

  /// A state directory of its own, created.
  private func stateDirectory() throws -> String {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
  }

  /// `directory` opened and checked as the store opens it.
  private func opened(_ directory: String) throws -> StateDirectory {
    var notices: [StateProblem] = []
    guard case .success(let opened?) = StateDirectory.open(directory, create: false, notices: &notices) else {
      throw XCTSkip("cannot open \(directory)")
    }
    return opened
  }

  func testAFailedReplaceClosesItsTemporaryFileEvenAsDescriptorZero() throws {
    let directory = try opened(try stateDirectory())
    defer { close(directory.fd) }
    let failpoints = FailpointRegistry()
    try failpoints.configure("store.write=return(EIO)")
    let (result, stillOpen) = withDescriptorZeroFree {
      DurableFile.replace(
        "launch-state.json", in: directory, with: Array("{}\n".utf8), uniqueSuffix: "zero", sync: false,
        readerGroup: nil, failpoints: failpoints)
    }
    guard let failure = result else { return XCTFail("the write failpoint fails the replace") }
    XCTAssertEqual(failure.operation, "write")
    XCTAssertFalse(stillOpen, "the temporary file opened as descriptor 0 was closed")
  }

  func testALockFileOpenedAsDescriptorZeroIsALock() throws {
    let directory = try stateDirectory()
    let ((_, problems), stillOpen) = withDescriptorZeroFree {
      StateStore(directory: directory).update { $0.consecutiveCrashes = 1 }
    }
    XCTAssertEqual(problems, [], "the lock (descriptor 0) was taken and the state written")
    XCTAssertFalse(stillOpen, "the lock's descriptor 0 was used and closed, not left open for another")
    XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, 1)
  }

  func testAStateFileOpenedAsDescriptorZeroIsRead() throws {
    let directory = try stateDirectory()
    var state = LaunchState()
    state.consecutiveCrashes = 3
    XCTAssertNil(StateStore(directory: directory).overwrite(state))
    let (read, _) = withDescriptorZeroFree { Result { try StateStore(directory: directory).read() } }
    XCTAssertEqual(try read.get()?.consecutiveCrashes, 3)
  }

  /// An update opens the state file after the lock; when it is the first open of the process
  /// (a tool, or a store whose lock is already held), it gets descriptor 0 and must be read.
  func testTheStateFileOpenedForAnUpdateAsDescriptorZeroIsRead() throws {
    let path = try stateDirectory() + "/launch-state.json"
    try Data("{}\n".utf8).write(to: URL(fileURLWithPath: path))
    let directory = try opened(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    defer { close(directory.fd) }
    let ((opened, result), stillOpen) = withDescriptorZeroFree {
      let (opened, result) = DurableFile.openForUpdate(in: directory, "launch-state.json", mode: 0o600)
      defer { opened.close() }
      return (opened, result)
    }
    if let result { return XCTFail("\(result)") }
    XCTAssertEqual(opened.fd, 0)
    XCTAssertTrue(opened.writable)
    XCTAssertEqual(opened.bytes, Array("{}\n".utf8))
    XCTAssertFalse(stillOpen, "closed")
  }

  /// Liveness reads /proc/<pid>/stat with a plain open: as descriptor 0 it is read and closed.
  func testAProcfsFileOpenedAsDescriptorZeroIsRead() {
    let (startTime, stillOpen) = withDescriptorZeroFree { SystemProcessFacts.startTime(of: getpid()) }
    XCTAssertEqual(startTime, SystemProcessFacts.currentIdentity.startTime)
    XCTAssertFalse(stillOpen, "closed")
  }

  func testAnInPlaceWriteToDescriptorZeroIsMade() throws {
    let path = try stateDirectory() + "/slots"
    try Data(repeating: UInt8(ascii: " "), count: 16).write(to: URL(fileURLWithPath: path))
    let directory = try opened(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    defer { close(directory.fd) }
    let (result, _) = withDescriptorZeroFree {
      DurableFile.overwrite("slots", in: directory, at: 4, with: Array("ok".utf8), failpoints: FailpointRegistry())
    }
    if let result { return XCTFail("\(result)") }
    XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "    ok          ")
  }

  /// With `.powerLoss` the directory's descriptor is fsynced after the rename: as descriptor 0
  /// (the first the process opened) too.
  func testADurableReplaceSyncsADirectoryOpenedAsDescriptorZero() throws {
    let path = try stateDirectory()
    let (result, _) = withDescriptorZeroFree { () -> DurableFile.Failure? in
      guard let directory = try? opened(path) else { return .init(operation: "open directory", errno: 0) }
      defer { close(directory.fd) }
      XCTAssertEqual(directory.fd, 0)
      return DurableFile.replace(
        "launch-state.json", in: directory, with: Array("{}\n".utf8), uniqueSuffix: "zero", sync: true,
        readerGroup: nil, failpoints: FailpointRegistry())
    }
    if let result { return XCTFail("\(result)") }
  }

  func testANotifyDatagramIsSentFromDescriptorZero() {
    let launches = SimulatedLaunches()
    let socket = NotifySocket(path: launches.directory.file("notify.sock"))
    let (sent, _) = withDescriptorZeroFree { SystemdNotify.send("READY=1", to: socket.path) }
    XCTAssertTrue(sent)
    XCTAssertEqual(socket.drain(), ["READY=1"])
  }
}
