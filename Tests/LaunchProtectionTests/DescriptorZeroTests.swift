import Failpoints
import Foundation
import XCTest

@testable import LaunchProtection

/// A daemon started with its standard input closed gets descriptor 0 from its first `open`:
/// the state store must close it like any other when a write fails, or every failed write
/// leaks a descriptor for the rest of the process's life.
final class DescriptorZeroTests: XCTestCase {
  func testAFailedReplaceClosesItsTemporaryFileEvenAsDescriptorZero() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let failpoints = FailpointRegistry()
    try failpoints.configure("store.write=return(EIO)")
    let saved = dup(0)
    XCTAssertGreaterThan(saved, 0)
    close(0)
    let result = DurableFile.replace(
      directory + "/launch-state.json", directory: directory, with: Array("{}\n".utf8), uniqueSuffix: "zero",
      sync: false, failpoints: failpoints)
    let stillOpen = fcntl(0, F_GETFD) != -1
    dup2(saved, 0)
    close(saved)
    guard case .failure(let failure) = result else { return XCTFail("the write failpoint fails the replace") }
    XCTAssertEqual(failure.operation, "write")
    XCTAssertFalse(stillOpen, "the temporary file opened as descriptor 0 was closed")
  }

  func testALockFileOpenedAsDescriptorZeroIsALock() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let saved = dup(0)
    XCTAssertGreaterThan(saved, 0)
    close(0)
    let (_, problems) = StateStore(directory: directory).update { $0.consecutiveCrashes = 1 }
    dup2(saved, 0)
    close(saved)
    XCTAssertEqual(problems, [], "the lock (descriptor 0) was taken and the state written")
    XCTAssertEqual(try StateStore(directory: directory).read()?.consecutiveCrashes, 1)
  }

  func testAStateFileOpenedAsDescriptorZeroIsRead() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    var state = LaunchState()
    state.consecutiveCrashes = 3
    XCTAssertNil(StateStore(directory: directory).overwrite(state))
    let saved = dup(0)
    XCTAssertGreaterThan(saved, 0)
    close(0)
    let read = Result { try StateStore(directory: directory).read() }
    dup2(saved, 0)
    close(saved)
    XCTAssertEqual(try read.get()?.consecutiveCrashes, 3)
  }

  func testAnInPlaceWriteToDescriptorZeroIsMade() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/slots"
    try Data(repeating: UInt8(ascii: " "), count: 16).write(to: URL(fileURLWithPath: path))
    let saved = dup(0)
    XCTAssertGreaterThan(saved, 0)
    close(0)
    let result = DurableFile.overwrite(path, at: 4, with: Array("ok".utf8), failpoints: FailpointRegistry())
    dup2(saved, 0)
    close(saved)
    guard case .success = result else { return XCTFail("\(result)") }
    XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "    ok          ")
  }

  /// With `.powerLoss` the directory is opened for its fsync after the temporary file was
  /// closed, so it may get descriptor 0 too.
  func testADurableReplaceSyncsADirectoryOpenedAsDescriptorZero() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let saved = dup(0)
    XCTAssertGreaterThan(saved, 0)
    close(0)
    let result = DurableFile.replace(
      directory + "/launch-state.json", directory: directory, with: Array("{}\n".utf8), uniqueSuffix: "zero",
      sync: true, failpoints: FailpointRegistry())
    dup2(saved, 0)
    close(saved)
    guard case .success = result else { return XCTFail("\(result)") }
  }

  func testANotifyDatagramIsSentFromDescriptorZero() {
    let launches = SimulatedLaunches()
    let socket = NotifySocket(path: launches.directory.file("notify.sock"))
    let saved = dup(0)
    XCTAssertGreaterThan(saved, 0)
    close(0)
    let sent = SystemdNotify.send("READY=1", to: socket.path)
    dup2(saved, 0)
    close(saved)
    XCTAssertTrue(sent)
    XCTAssertEqual(socket.drain(), ["READY=1"])
  }
}
