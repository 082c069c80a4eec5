import Foundation
import XCTest

@testable import LaunchProtection

/// The state directory's trust rule (the Security article): only files of this uid or root,
/// in a directory no other user can write, are read; nothing is followed, nothing blocks, and
/// what the library makes is private. Real files, real modes, real owners (root runs these as
/// `nobody`'s files with chown).
final class TrustRuleTests: XCTestCase {
  private func directory(mode: mode_t = 0o755) throws -> String {
    let path = SimulatedLaunches().stateDirectory
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    XCTAssertEqual(chmod(path, mode), 0)
    return path
  }

  private func mode(_ path: String) -> mode_t {
    var info = stat()
    XCTAssertEqual(lstat(path, &info), 0, path)
    return info.st_mode & 0o7777
  }

  private func requireRoot() throws {
    guard geteuid() == 0 else { throw XCTSkip("needs root, to give files to another user") }
  }

  /// Runs `body` on another thread and fails if it has not returned within 5 s: a FIFO opened
  /// for reading without O_NONBLOCK would wait forever.
  private func returnsPromptly<T: Sendable>(_ label: String, _ body: @escaping @Sendable () -> T) -> T? {
    let done = DispatchSemaphore(value: 0)
    let result = LockedBox<T>()
    Thread.detachNewThread {
      result.set(body())
      done.signal()
    }
    guard done.wait(timeout: .now() + 5) == .success else {
      XCTFail("\(label): blocked")
      return nil
    }
    return result.get()
  }

  // MARK: - Directories

  func testAWorldWritableDirectoryKeepsTheStateInAPrivateSubdirectory() throws {
    let shared = try directory(mode: 0o777)
    let store = StateStore(directory: shared)
    let (_, problems) = store.update { $0.consecutiveCrashes = 3 }
    XCTAssertEqual(problems, [])
    let own = shared + "/private-\(geteuid())"
    XCTAssertEqual(store.statePath, own + "/launch-state.json")
    XCTAssertEqual(mode(own), 0o700)
    XCTAssertFalse(FileManager.default.fileExists(atPath: shared + "/launch-state.json"), "nothing at the top")
    XCTAssertEqual(try StateStore(directory: shared).read()?.consecutiveCrashes, 3, "read back from the same place")
  }

  func testAGroupWritableSetgidDirectoryIsSharedToo() throws {
    // Kubernetes' fsGroup: the volume is group-writable with the setgid bit.
    let shared = try directory(mode: 0o2770)
    let (_, problems) = StateStore(directory: shared).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems, [])
    XCTAssertTrue(FileManager.default.fileExists(atPath: shared + "/private-\(geteuid())/launch-state.json"))
  }

  func testAnotherUsersCrashLoopAtTheTopOfASharedDirectoryIsIgnoredAndNamed() throws {
    try requireRoot()
    let shared = try directory(mode: 0o777)
    var crashLoop = LaunchState()
    crashLoop.consecutiveCrashes = 5
    try Data(StateJSON.encode(crashLoop)).write(to: URL(fileURLWithPath: shared + "/launch-state.json"))
    XCTAssertEqual(chown(shared + "/launch-state.json", 65534, 65534), 0)
    let (count, problems) = StateStore(directory: shared).update { $0.consecutiveCrashes }
    XCTAssertEqual(count, 0, "another user's count never counts")
    let problem = try XCTUnwrap(problems.first { $0.code == .untrusted }, "\(problems)")
    XCTAssertEqual(problem.owner, 65534)
    XCTAssertEqual(problem.path, shared + "/launch-state.json")
    XCTAssertTrue(problem.description.contains("uid 65534"), problem.description)
    XCTAssertTrue(problem.description.contains("mode 0777"), problem.description)
  }

  func testADirectoryOfAnotherUserIsNotUsed() throws {
    try requireRoot()
    let foreign = try directory(mode: 0o755)
    XCTAssertEqual(chown(foreign, 65534, 65534), 0)
    let store = StateStore(directory: foreign)
    let (_, problems) = store.update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems.map(\.code), [.untrusted])
    XCTAssertEqual(problems.first?.owner, 65534)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: foreign), [], "nothing written in it")
    let (_, again) = store.update { $0.consecutiveCrashes = 2 }
    XCTAssertEqual(again, [], "reported once; the store stays unprotected without writing")
  }

  /// Followed only when trusted (`TrustedLinkTests` has every case): here, a link of root's or
  /// this uid's is refused while the directory holding it is world-writable, and followed once
  /// it is not.
  func testASymlinkAsTheStateDirectoryIsFollowedOnlyWhenTrusted() throws {
    let target = try directory()
    let launches = SimulatedLaunches()
    let link = launches.stateDirectory
    XCTAssertEqual(chmod(launches.directory.path, 0o777), 0)
    XCTAssertEqual(symlink(target, link), 0)
    let (_, problems) = StateStore(directory: link).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems.map(\.code), [.untrusted])
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target), [], "nothing written through it")
    XCTAssertEqual(chmod(launches.directory.path, 0o755), 0)
    let (_, followed) = StateStore(directory: link).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(followed, [])
    XCTAssertTrue(FileManager.default.fileExists(atPath: target + "/launch-state.json"))
  }

  // MARK: - Files

  /// Each kind of entry planted as the state file or the lock: refused (reported), moved aside,
  /// never followed, never waited on; a fresh regular file takes its place.
  func testPlantedEntriesAreRefusedNotFollowedAndNeverBlock() throws {
    let kinds = ["symlink", "fifo", "directory", "socket"] + (geteuid() == 0 ? ["foreign"] : [])
    for name in ["launch-state.json", "launch-state.lock"] {
      for kind in kinds {
        let label = "\(kind) as \(name)"
        let state = try directory()
        let outside = state + "-outside"
        XCTAssertTrue(FileManager.default.createFile(atPath: outside, contents: Data("outside\n".utf8)))
        let path = state + "/" + name
        switch kind {
        case "symlink": XCTAssertEqual(symlink(outside, path), 0, label)
        case "fifo": XCTAssertEqual(mkfifo(path, 0o600), 0, label)
        case "directory": XCTAssertEqual(mkdir(path, 0o700), 0, label)
        case "socket": try bindSocket(at: path)
        default:
          XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8)))
          XCTAssertEqual(chown(path, 65534, 65534), 0)
        }
        let store = StateStore(directory: state)
        let result = returnsPromptly(label) { store.update { $0.consecutiveCrashes = 1 } }
        guard let (_, problems) = result else { continue }
        let refused = try XCTUnwrap(problems.first { $0.code == .wrongFileType || $0.code == .untrusted }, label)
        XCTAssertEqual(refused.code, kind == "foreign" ? .untrusted : .wrongFileType, label)
        XCTAssertNotNil(refused.movedTo, "\(label): moved aside")
        XCTAssertEqual(try String(contentsOfFile: outside, encoding: .utf8), "outside\n", "\(label): not followed")
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, label)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "\(label): a regular file in its place")
        if name == "launch-state.json" {
          XCTAssertEqual(try StateStore(directory: state).read()?.consecutiveCrashes, 1, label)
        }
      }
    }
  }

  func testALockSymlinkToAMissingPathCreatesNothingThere() throws {
    let state = try directory()
    let missing = state + "-made-through-link"
    XCTAssertEqual(symlink(missing, state + "/launch-state.lock"), 0)
    _ = StateStore(directory: state).update { $0.consecutiveCrashes = 1 }
    XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "open(O_CREAT) through the link made it")
  }

  func testATemporaryPlantedAsASymlinkIsNotFollowed() throws {
    let path = try directory()
    let outside = path + "-outside"
    XCTAssertTrue(FileManager.default.createFile(atPath: outside, contents: Data("outside\n".utf8)))
    XCTAssertEqual(symlink(outside, path + "/launch-state.json.tmp-planted"), 0)
    var notices: [StateProblem] = []
    guard case .success(let opened?) = StateDirectory.open(path, create: false, notices: &notices) else {
      return XCTFail("open")
    }
    defer { close(opened.fd) }
    let result = DurableFile.replace(
      "launch-state.json", in: opened, with: Array("{}\n".utf8), uniqueSuffix: "planted", sync: false,
      readerGroup: nil, failpoints: .shared)
    guard let failure = result else { return XCTFail("O_EXCL must refuse the planted name") }
    XCTAssertEqual(failure.errno, EEXIST)
    XCTAssertEqual(try String(contentsOfFile: outside, encoding: .utf8), "outside\n", "not followed")
  }

  func testACrashReportPlantedAsASymlinkIsRefusedAndMovedAside() throws {
    let path = try directory()
    let outside = path + "-outside.json"
    let report = #"{"signal_name":"SIGSEGV","main_thread":true,"thread":1,"frames":[]}"#
    XCTAssertTrue(FileManager.default.createFile(atPath: outside, contents: Data(report.utf8)))
    XCTAssertEqual(symlink(outside, path + "/crash-9-9.json"), 0)
    var notices: [StateProblem] = []
    guard case .success(let opened?) = StateDirectory.open(path, create: false, notices: &notices) else {
      return XCTFail("open")
    }
    defer { close(opened.fd) }
    let (reports, refused) = CrashReports.all(in: opened)
    XCTAssertTrue(reports.isEmpty, "a linked report is never read")
    XCTAssertEqual(refused.map(\.code), [.wrongFileType])
    XCTAssertEqual(refused.first?.movedTo, path + "/crash-9-9.json.refused")
    XCTAssertTrue(CrashReports.reportNames(in: opened).isEmpty, "not listed again")
  }

  // MARK: - Modes

  func testWhatTheLibraryMakesIsPrivate() throws {
    let parent = try directory()
    let state = parent + "/made/launch"
    let (_, problems) = StateStore(directory: state).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(problems, [])
    XCTAssertEqual(mode(parent + "/made"), 0o700, "a parent it made")
    XCTAssertEqual(mode(state), 0o700)
    XCTAssertEqual(mode(state + "/launch-state.json"), 0o600)
    XCTAssertEqual(mode(state + "/launch-state.lock"), 0o600)
  }

  func testAFileAnOlderVersionMadeReadableIsNarrowed() throws {
    let state = try directory()
    XCTAssertNil(StateStore(directory: state).overwrite(LaunchState()))
    XCTAssertEqual(chmod(state + "/launch-state.json", 0o644), 0)
    _ = StateStore(directory: state).update { $0.consecutiveCrashes = 1 }
    XCTAssertEqual(mode(state + "/launch-state.json"), 0o600)
  }

  func testAReaderGroupMayReadTheStateAndTheDirectory() throws {
    try requireRoot()
    let parent = try directory()
    let state = parent + "/launch"
    let store = StateStore(directory: state, readerGroup: 65534)
    _ = store.update { $0.consecutiveCrashes = 1 }
    var info = stat()
    XCTAssertEqual(stat(state, &info), 0)
    XCTAssertEqual(info.st_mode & 0o7777, 0o750)
    XCTAssertEqual(info.st_gid, 65534)
    XCTAssertEqual(stat(state + "/launch-state.json", &info), 0)
    XCTAssertEqual(info.st_mode & 0o7777, 0o640)
    XCTAssertEqual(info.st_gid, 65534)
  }

  private func bindSocket(at path: String) throws {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    XCTAssertEqual(bound, 0, "bind \(path)")
  }
}

/// A value handed from one thread to another.
private final class LockedBox<T: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: T?
  func set(_ new: T) { lock.withLock { value = new } }
  func get() -> T? { lock.withLock { value } }
}
