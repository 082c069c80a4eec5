import CFuzzDriver
import Failpoints
import Foundation
import LaunchProtection
import Synchronization

// Whatever bytes are in `launch-state.json`, `finishLaunching` must return and run either the
// launch or the repair, exactly one of them, and the launch must then finish. (Reproduce a
// finding by hand with the bytes after the placeholders below are replaced.)
//
// An input that starts with `#plant <kind> <name>` and a newline plants, instead, something
// else under `name` in the state directory (the state file, the lock, a crash report with its
// marker): a `symlink` to a file outside holding the rest of the bytes (or, for an empty rest,
// to a path that does not exist), a `fifo`, a `directory`, a `socket`, or a `foreign` regular
// file (the rest of the bytes) owned by uid 65534. Then nothing may be followed (the outside
// file unchanged, the missing path still missing), nothing may block, and the launch must
// report a problem for what it refused.
//
// `#plant <kind> state-directory` plants the state directory itself: a `symlink` (root's or
// this user's, in a directory no one else can write: trusted, so followed) or a `foreign` one
// (given to uid 65534: refused) to a directory holding the rest of the bytes as the state
// file; a `fifo` or a `socket` (refused); a `directory` holding them (the ordinary case). A
// trusted link must be followed and stay a link; a refused one must leave its target as it was.

/// Which closures ran for one input.
private final class Ran: Sendable {
  let launch = Atomic<Int>(0)
  let protect = Atomic<Int>(0)
}

/// One scratch directory for this process (removed at exit); each input gets a fresh `state` in it.
private let scratch: String = {
  let base = ProcessInfo.processInfo.environment["FUZZ_SCRATCH"] ?? NSTemporaryDirectory()
  let path = (base as NSString).appendingPathComponent("fuzz-state-file-\(getpid())")
  try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  atexit { try? FileManager.default.removeItem(atPath: scratch) }
  return path
}()

/// The registry the organizer evaluates: empty, so no failpoint ever fires.
private let noFailpoints = FailpointRegistry()

/// `@BOOT@` and `@EXE@` in an input stand for this machine's boot id and this binary's
/// executable id: seeds (committed from another machine) can then describe launches that died
/// in this boot, and an unchanged binary, so counting and escalation are reachable.
private let placeholders: [(token: [UInt8], value: [UInt8])] = [
  (Array("@BOOT@".utf8), Array(LaunchEnvironment.system.current().bootID.utf8)),
  (Array("@EXE@".utf8), Array((LaunchEnvironment.system.executableID() ?? "").utf8)),
]

private func substitutingPlaceholders(_ bytes: [UInt8]) -> [UInt8] {
  var result = bytes
  for (token, value) in placeholders {
    var output: [UInt8] = []
    var index = 0
    while index < result.count {
      if result[index] == token[0], result[index...].starts(with: token) {
        output += value
        index += token.count
      } else {
        output.append(result[index])
        index += 1
      }
    }
    result = output
  }
  return result
}

/// What `#plant <kind> <name>` asks for.
private struct Plant {
  enum Kind: String { case symlink, fifo, directory, socket, foreign }
  var kind: Kind
  var name: String
  var rest: Data

  static let names = ["launch-state.json", "launch-state.lock", "crash-1-1.json", stateDirectory]
  static let stateDirectory = "state-directory"
  /// Where a link planted as the state directory leads.
  static let linked = scratch + "/linked"

  /// The plant an input asks for; nil for a plain state file.
  init?(_ bytes: [UInt8]) {
    let header = Array("#plant ".utf8)
    guard bytes.starts(with: header), let newline = bytes.firstIndex(of: 0x0A) else { return nil }
    let words = String(decoding: bytes[header.count..<newline], as: UTF8.self).split(separator: " ")
    guard words.count == 2, let kind = Kind(rawValue: String(words[0])), Self.names.contains(String(words[1])) else {
      return nil
    }
    self.kind = kind
    self.name = String(words[1])
    self.rest = Data(bytes[(newline + 1)...])
  }

  /// Plants it in `directory` (or as it); returns the outside path a symlink points to.
  func plant(in directory: String) -> String? {
    if name == Self.stateDirectory {
      plantDirectory(directory)
      return nil
    }
    let path = directory + "/" + name
    if name.hasPrefix("crash-") {
      precondition(FileManager.default.createFile(atPath: directory + "/pending-crash-reports", contents: nil))
    }
    switch kind {
    case .symlink:
      let outside = scratch + "/outside"
      try? FileManager.default.removeItem(atPath: outside)
      if !rest.isEmpty { precondition(FileManager.default.createFile(atPath: outside, contents: rest)) }
      precondition(symlink(outside, path) == 0, "symlink \(path)")
      return outside
    case .fifo: precondition(mkfifo(path, 0o600) == 0, "mkfifo \(path)")
    case .directory: precondition(mkdir(path, 0o700) == 0, "mkdir \(path)")
    case .socket: bindSocket(path)
    case .foreign:
      precondition(FileManager.default.createFile(atPath: path, contents: rest))
      if geteuid() == 0 { precondition(chown(path, 65534, 65534) == 0) }
    }
    return nil
  }

  /// Plants the state directory itself at `path` (see the top of this file).
  private func plantDirectory(_ path: String) {
    let state = Data(substitutingPlaceholders(Array(rest)))
    try? FileManager.default.removeItem(atPath: Self.linked)
    switch kind {
    case .symlink, .foreign:
      precondition(mkdir(Self.linked, 0o700) == 0, "mkdir \(Self.linked)")
      precondition(FileManager.default.createFile(atPath: Self.linked + "/launch-state.json", contents: state))
      precondition(symlink("linked", path) == 0, "symlink \(path)")
      if kind == .foreign, geteuid() == 0 { precondition(lchown(path, 65534, 65534) == 0) }
    case .fifo: precondition(mkfifo(path, 0o600) == 0, "mkfifo \(path)")
    case .socket: bindSocket(path)
    case .directory:
      precondition(mkdir(path, 0o700) == 0, "mkdir \(path)")
      precondition(FileManager.default.createFile(atPath: path + "/launch-state.json", contents: state))
    }
  }

  private func bindSocket(_ path: String) {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    close(fd)
    precondition(bound == 0, "bind \(path)")
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let directory = scratch + "/state"
  try? FileManager.default.removeItem(atPath: directory)
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  let plant = Plant(input)
  if plant?.name != Plant.stateDirectory {
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }
  var outside: String?
  if let plant {
    outside = plant.plant(in: directory)
  } else {
    let bytes = Data(substitutingPlaceholders(input))
    guard FileManager.default.createFile(atPath: directory + "/launch-state.json", contents: bytes) else {
      fatalError("cannot write the state file in \(directory)")
    }
  }

  var configuration = LaunchOrganizer.Configuration(stateDirectory: directory)
  configuration.ignoreTermination = false  // no SIGTERM handler per input
  configuration.notifyReady = false
  configuration.failpoints = noFailpoints
  let organizer = LaunchOrganizer(configuration: configuration)
  let ran = Ran()
  organizer.finishLaunching(
    policy: .custom { $0 >= 2 },
    launch: { ran.launch.add(1, ordering: .relaxed) },
    protect: { _ in ran.protect.add(1, ordering: .relaxed) })
  let launched = ran.launch.load(ordering: .relaxed)
  let protected = ran.protect.load(ordering: .relaxed)
  precondition(
    launched + protected == 1, "finishLaunching ran launch \(launched) and protect \(protected) times (want one)")
  if protected == 1 {
    precondition(organizer.protectFinished(), "protect mode without a held launch")
    precondition(ran.launch.load(ordering: .relaxed) == 1, "protectFinished did not run the held launch")
  }
  organizer.launchingFinished()
  // What the launch left must read back (or be reported as a problem), never trap.
  _ = try? StateStore(directory: directory).read()
  let problems = organizer.status.decision?.problems ?? []
  if let plant, plant.name == Plant.stateDirectory {
    checkDirectory(plant, at: directory, problems: problems)
  } else if let plant {
    check(plant, outside: outside, problems: problems)
  }
  return 0
}

/// A trusted link as the state directory was followed (and is still a link); anything else
/// planted as it was refused and left its target as it was.
private func checkDirectory(_ plant: Plant, at directory: String, problems: [StateProblem]) {
  let refused = problems.contains { ($0.code == .wrongFileType || $0.code == .untrusted) && $0.path == directory }
  var info = stat()
  switch plant.kind {
  case .symlink:
    precondition(!refused, "a trusted link as the state directory was refused: \(problems)")
    precondition(lstat(directory, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link was replaced")
  case .foreign where geteuid() == 0:
    precondition(refused, "another user's link as the state directory was not refused: \(problems)")
    let lock = Plant.linked + "/launch-state.lock"
    precondition(lstat(lock, &info) != 0, "a lock was made through another user's link")
  case .fifo, .socket:
    precondition(refused, "\(plant.kind) as the state directory was not refused: \(problems)")
  default: break
  }
}

/// Nothing planted was followed, and what was refused was reported.
private func check(_ plant: Plant, outside: String?, problems: [StateProblem]) {
  if let outside {
    let now = FileManager.default.contents(atPath: outside)
    precondition(now == (plant.rest.isEmpty ? nil : plant.rest), "\(plant.name): its symlink was followed")
  }
  let refused = problems.contains { $0.code == .wrongFileType || $0.code == .untrusted }
  let expected = plant.kind != .foreign || geteuid() == 0
  precondition(!expected || refused, "\(plant.kind) as \(plant.name) was not reported: \(problems)")
}

/// The entry point SwiftPM links as `main` (see CFuzzDriver): libFuzzer's driver on `fuzz`.
@_cdecl("fuzz_state_file_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  var argc = argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
