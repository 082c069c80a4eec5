import ChaosProbe

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `zombie_earlier_launch`: an earlier launch that died and is not reaped yet — a child of this
/// process (this binary again, on the same state directory) whose launch exits 3 at
/// `task.network`, left a zombie (event `zombie_launch`) while this launch begins, and reaped
/// once it finished. Its pid, start time and boot still name a process: only its state, Z,
/// says that it is dead.
enum ZombieLaunch {
  /// Starts the child and waits, at most 3 s, until it is a zombie; its pid, or nil.
  static func start() -> pid_t? {
    var environment = ProcessInfo.processInfo.environment
    environment["CHAOS_APP"] = #"{"threshold": 100}"#
    environment["CHAOS_FAILPOINTS"] = "task.network=exit(3)"
    environment["CHAOS_EVENTS"] = "/dev/null"
    let arguments = ["/proc/self/exe"]
    let entries = environment.map { "\($0.key)=\($0.value)" }
    var child: pid_t = 0
    let spawned = withCStrings(arguments) { argv in
      withCStrings(entries) { envp in posix_spawn(&child, "/proc/self/exe", nil, nil, argv, envp) }
    }
    guard spawned == 0 else {
      ChaosProbe.emit("zombie_launch", ["spawned": false, "errno": Int(spawned)])
      return nil
    }
    let deadline = ContinuousClock.now + .seconds(3)
    while state(of: child) != UInt8(ascii: "Z"), ContinuousClock.now < deadline { usleep(2_000) }
    ChaosProbe.emit("zombie_launch", ["spawned": true, "zombie": state(of: child) == UInt8(ascii: "Z")])
    return child
  }

  /// Reaps the child (its exit status is not needed: the launch it ran is what counts).
  static func reap(_ child: pid_t) {
    var status: Int32 = 0
    _ = waitpid(child, &status, 0)
  }

  /// The state letter of `/proc/<pid>/stat` (after the command's closing parenthesis).
  private static func state(of pid: pid_t) -> UInt8? {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
    defer { fclose(file) }
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = fread(&buffer, 1, buffer.count, file)
    guard let close = buffer[..<count].lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return nil }
    return buffer[close + 2]
  }

  private static func withCStrings<R>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R
  ) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
  }
}
