import Foundation

/// Reads an NDJSON events file written by a target (tests only; ChaosKit has the real decoder).
public enum EventsFile {
  /// Every complete line parsed as a JSON object.
  public static func read(_ path: String) -> [[String: Any]] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
  }

  /// Polls until an event named `name` appears (or `timeout` seconds pass).
  public static func waitFor(_ name: String, in path: String, timeout: Double = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if read(path).contains(where: { $0["event"] as? String == name }) { return true }
      usleep(2_000)
    }
    return false
  }
}
