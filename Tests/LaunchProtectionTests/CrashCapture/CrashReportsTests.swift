import Foundation
import XCTest

@testable import LaunchProtection

/// The crash reports a handler leaves in the state directory: when several wait (a crash after
/// the launch and a sibling's, say), the next launch takes the newest as the previous crash and
/// consumes them all; with no marker and the same build it leaves them alone.
final class CrashReportsTests: XCTestCase {
  private func report(_ directory: String, pid: Int, signal: String, at time: Double) throws {
    let path = "\(directory)/crash-\(pid)-\(pid).json"
    let line = #"{"signal_name":"\#(signal)","pid":\#(pid),"after_launch":true,"frames":[]}"# + "\n"
    try Data(line.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: time)], ofItemAtPath: path)
  }

  func testTheNewestReportIsThePreviousCrash() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    // Listed by name, the newest comes first, the oldest in the middle.
    try report(directory, pid: 301, signal: "SIGBUS", at: 1_700_000_300)
    try report(directory, pid: 302, signal: "SIGSEGV", at: 1_700_000_100)
    try report(directory, pid: 303, signal: "SIGILL", at: 1_700_000_200)
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(organizer.status.decision?.previousCrash?.type, "SIGBUS")
    XCTAssertEqual(organizer.status.decision?.previousCrash?.pid, 301)
    XCTAssertEqual(try launches.state()?.lastCrashCause?.type, "SIGBUS")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crash-") }
    XCTAssertEqual(left, [], "every report consumed")
  }

  /// The cause's detail says which thread crashed: the main thread, or a thread's id and name.
  func testTheDetailNamesTheCrashedThread() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let main = directory + "/crash-1-1.json"
    try Data(#"{"signal_name":"SIGSEGV","main_thread":true,"thread":41,"frames":["a"]}"#.utf8)
      .write(to: URL(fileURLWithPath: main))
    XCTAssertEqual(CrashReports.parse(path: main)?.detail?.hasPrefix("main thread, "), true)
    XCTAssertEqual(CrashReports.parse(path: main)?.afterLaunch, false, "no after_launch: during the launch")
    let worker = directory + "/crash-2-2.json"
    try Data(#"{"signal_name":"SIGSEGV","main_thread":false,"thread":42,"thread_name":"io","frames":[]}"#.utf8)
      .write(to: URL(fileURLWithPath: worker))
    XCTAssertEqual(CrashReports.parse(path: worker)?.detail?.hasPrefix("thread 42 io, "), true)
  }

  /// A field of another type than the handler writes is left out, as before (the report was
  /// read with JSONSerialization and `as?` casts), and a pid beyond Int32 is no pid, not a trap.
  func testFieldsOfAnotherTypeAreLeftOut() throws {
    let directory = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/crash-3-3.json"
    let line =
      #"{"signal_name":"SIGABRT","cause":"launch-hang","pid":99999999999,"thread":"x","thread_name":7,"#
      + #""main_thread":"yes","code":-6,"addr":"0x0","frames":["0x1",2],"after_launch":true}"# + "\n{not json"
    try Data(line.utf8).write(to: URL(fileURLWithPath: path))
    let cause = try XCTUnwrap(CrashReports.parse(path: path))
    XCTAssertEqual(cause.type, "launch-hang", "the cause names the report")
    XCTAssertNil(cause.pid)
    XCTAssertEqual(cause.detail, "thread ? , code -6, addr 0x0, top frames ")
    XCTAssertTrue(cause.afterLaunch)
    try Data(#"{"signal_name":"SIGSEGV","#.utf8).write(to: URL(fileURLWithPath: path))
    XCTAssertNil(CrashReports.parse(path: path), "not JSON: no cause")
  }

  /// A crash report is consumed only once what it said is on disk: when the launch's state
  /// write fails, the report stays for the next launch.
  func testAReportStaysWhenTheStateWriteFails() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try report(directory, pid: 401, signal: "SIGSEGV", at: 1_700_000_000)
    try launches.failpoints.configure("store.write=return(EIO)")
    launches.organizer().finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crash-") }
    XCTAssertEqual(left, ["crash-401-401.json"], "kept for the next launch")
  }

  /// A problem that is not a failed write (a corrupt state file, moved aside) does not keep
  /// the reports: the state that records them was written.
  func testAReportIsConsumedWhenOnlyTheOldStateWasBad() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try Data("not json".utf8).write(to: URL(fileURLWithPath: directory + "/launch-state.json"))
    try report(directory, pid: 501, signal: "SIGSEGV", at: 1_700_000_000)
    let recorder = Recorder()
    launches.organizer(observe: recorder).finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(recorder.count(of: "state_problem corrupt"), 1, "\(recorder.all)")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crash-") }
    XCTAssertEqual(left, [], "consumed: the new state records it")
    XCTAssertEqual(try launches.state()?.lastCrashCause?.pid, 501)
  }

  // MARK: The handler's marker: the directory is listed only when a report may wait

  private func marker(_ directory: String) -> String { directory + "/" + CrashReports.markerName }

  private func touch(_ path: String) throws {
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()), path)
  }

  /// One launch that writes the state (and its executable), so the next one knows the build.
  private func launchOnce(_ launches: SimulatedLaunches) -> LaunchOrganizer {
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    organizer.launchingFinished()
    return organizer
  }

  /// A report the handler marked is read, and the marker goes with it.
  func testAMarkedReportIsReadAndTheMarkerRemoved() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    _ = launchOnce(launches)
    try report(directory, pid: 601, signal: "SIGABRT", at: 1_700_000_000)
    try touch(marker(directory))
    let organizer = launches.organizer()
    organizer.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(organizer.status.decision?.previousCrash?.pid, 601)
    XCTAssertFalse(FileManager.default.fileExists(atPath: marker(directory)), "marker removed with the report")
    let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("crash-") }
    XCTAssertEqual(left, [])
  }

  /// Without the marker, and with the same executable as the last launch, the directory is not
  /// listed: a report no handler marked waits (this is what spares the usual launch a listing).
  func testAnUnmarkedReportWaitsForTheMarkerOrANewBuild() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    _ = launchOnce(launches)
    try report(directory, pid: 602, signal: "SIGBUS", at: 1_700_000_000)
    let same = launches.organizer()
    same.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    same.launchingFinished()
    XCTAssertNil(same.status.decision?.previousCrash, "not listed: no marker, same build")
    // A new build lists once: an earlier version, without the marker, may have left reports.
    launches.executable.withLock { $0 = "build-2" }
    let upgraded = launches.organizer()
    upgraded.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(upgraded.status.decision?.previousCrash?.pid, 602)
  }

  /// When the state write fails, the marker stays with the reports for the next launch.
  func testTheMarkerStaysWhenTheStateWriteFails() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    _ = launchOnce(launches)
    try report(directory, pid: 603, signal: "SIGSEGV", at: 1_700_000_000)
    try touch(marker(directory))
    try launches.failpoints.configure("store.write=return(EIO)")
    launches.organizer().finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertTrue(FileManager.default.fileExists(atPath: marker(directory)), "kept with the report")
    try launches.failpoints.configure("")
    let next = launches.organizer()
    next.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertEqual(next.status.decision?.previousCrash?.pid, 603)
  }

  /// A report still there after the others were consumed (one that cannot be read) keeps the
  /// marker, so it is looked at again rather than forgotten.
  func testTheMarkerComesBackWhileAReportRemains() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    _ = launchOnce(launches)
    try report(directory, pid: 604, signal: "SIGSEGV", at: 1_700_000_000)
    try Data("not a report".utf8).write(to: URL(fileURLWithPath: directory + "/crash-605-605.json"))
    try touch(marker(directory))
    let organizer = launches.organizer()
    let descriptorsBefore = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    organizer.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    let descriptorsAfter = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    XCTAssertEqual(organizer.status.decision?.previousCrash?.pid, 604)
    XCTAssertTrue(FileManager.default.fileExists(atPath: marker(directory)), "a report remains: marked again")
    // Three descriptors more: the state directory's, the lock's and the state file's, which the
    // organizer's store keeps for its next update; none for the marker.
    XCTAssertEqual(descriptorsAfter, descriptorsBefore + 3, "the marker made again was closed")
  }

  /// With no marker and the same build, a launch leaves the directory alone: a report there
  /// that no handler marked (one it cannot read, say) gets no marker from the launch either.
  func testALaunchWithoutAMarkerLeavesTheReportsAlone() throws {
    let launches = SimulatedLaunches()
    let directory = launches.stateDirectory
    let first = launches.organizer()
    first.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    first.launchingFinished()
    try Data("not a report".utf8).write(to: URL(fileURLWithPath: directory + "/crash-9-9.json"))
    let next = launches.organizer()
    next.finishLaunching(policy: .threshold(100), launch: {}, protect: { _ in })
    XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/" + CrashReports.markerName))
    XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/crash-9-9.json"), "untouched")
  }
}

extension CrashReports {
  /// The cause the report at `path` gives, read as a launch reads it (test shorthand).
  static func parse(path: String) -> CrashCause? {
    var notices: [StateProblem] = []
    let url = URL(fileURLWithPath: path)
    guard
      case .success(let directory?) = StateDirectory.open(
        url.deletingLastPathComponent().path, create: false, notices: &notices)
    else { return nil }
    defer { close(directory.fd) }
    guard let file = try? DurableFile.read(in: directory, url.lastPathComponent) else { return nil }
    return parse(file.bytes, info: file.info)
  }
}
