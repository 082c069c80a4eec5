import ChaosKit
import Foundation
import Testing

/// kvd as a plain daemon (not under chaos): it serves, journals, stops on SIGTERM and replays
/// the journal at the next start.
@Test func servesJournalsAndReplays() throws {
  // Short enough for a socket path (108 bytes).
  let data = "/tmp/kvd-serve-\(getpid())"
  try? FileManager.default.removeItem(atPath: data)
  defer { try? FileManager.default.removeItem(atPath: data) }
  func start() throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ScenarioCase.executable("kvd"))
    process.environment = ["KVD_DATA_DIR": data, "PATH": "/usr/bin:/bin"]
    process.standardError = FileHandle.nullDevice
    try process.run()
    for _ in 0..<500 where !FileManager.default.fileExists(atPath: data + "/kvd.sock") { usleep(10_000) }
    return process
  }
  func request(_ line: String) -> String {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let path = data + "/kvd.sock"
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: path.utf8)
      buffer[path.utf8.count] = 0
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else { return "connect failed" }
    _ = Array((line + "\n").utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let count = read(fd, &buffer, buffer.count)
    return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .newlines) : ""
  }

  var daemon = try start()
  #expect(request("SET greeting hello") == "OK")
  #expect(request("GET greeting") == "hello")
  daemon.terminate()
  daemon.waitUntilExit()
  #expect(daemon.terminationReason == .exit && daemon.terminationStatus == 0, "SIGTERM is a clean stop")

  daemon = try start()
  #expect(request("GET greeting") == "hello", "replayed from the journal")
  daemon.terminate()
  daemon.waitUntilExit()
}
