import Failpoints
import Foundation

/// Reads and durably updates the protection state file of one directory.
///
/// Every update runs under an advisory lock, so processes sharing the directory never lose
/// an increment. Problems are returned, never thrown: the launch must go on.
public final class StateStore: Sendable {
  /// The directory the app chose; created on first write.
  public let directory: String
  /// The state file inside `directory`.
  public var statePath: String { directory + "/launch-state.json" }
  /// The lock file inside `directory`.
  public var lockPath: String { directory + "/launch-state.lock" }

  private let lockTimeout: Duration
  private let failpoints: FailpointRegistry

  /// Creates a store for `directory`.
  public init(directory: String, lockTimeout: Duration = .seconds(2), failpoints: FailpointRegistry = .shared) {
    self.directory = directory
    self.lockTimeout = lockTimeout
    self.failpoints = failpoints
  }

  /// What `read()` could not accept.
  public struct ReadError: Error, CustomStringConvertible {
    /// The problem, as an update would report it (without moving the file).
    public var problem: StateProblem
    public var description: String { problem.description }
  }

  /// Reads the state without locking or moving anything (for inspection, e.g. by the harness).
  /// Returns nil when there is no state file yet.
  public func read() throws(ReadError) -> LaunchState? {
    switch Self.decode(DurableFile.read(statePath), path: statePath) {
    case .success(let state): return state
    case .failure(let problem): throw ReadError(problem: problem)
    }
  }

  /// Runs `body` on the current state under the lock and persists the result if it changed.
  ///
  /// A state that cannot be read is moved aside and `body` sees an empty state.
  func update<T>(_ body: (inout LaunchState) -> T) -> (result: T, problems: [StateProblem]) {
    var problems: [StateProblem] = []
    if mkdir(directory, 0o755) != 0, errno != EEXIST {
      problems.append(.writeFailed(path: directory, operation: "mkdir", errno: errno))
    }
    let lock: FileLock?
    switch FileLock.acquire(path: lockPath, timeout: lockTimeout) {
    case .success(let taken): lock = taken
    case .failure(let problem):
      lock = nil
      problems.append(problem)
    }
    defer { lock?.release() }

    var state: LaunchState
    switch Self.decode(DurableFile.read(statePath), path: statePath) {
    case .success(let loaded): state = loaded ?? LaunchState()
    case .failure(let problem):
      problems.append(moveAside(problem))
      state = LaunchState()
    }
    let before = state
    let result = body(&state)
    if state != before || problems.contains(where: Self.needsRewrite) {
      if let problem = write(state) { problems.append(problem) }
    }
    return (result, problems)
  }

  private func write(_ state: LaunchState) -> StateProblem? {
    let bytes = Array(Self.encode(state))
    let suffix = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    switch DurableFile.replace(
      statePath, directory: directory, with: bytes, uniqueSuffix: suffix, failpoints: failpoints)
    {
    case .success: return nil
    case .failure(let failure):
      return .writeFailed(path: statePath, operation: failure.operation, errno: failure.errno)
    }
  }

  private static func needsRewrite(_ problem: StateProblem) -> Bool {
    switch problem {
    case .corrupt, .futureVersion, .unreadable: true
    case .writeFailed, .lockUnavailable: false
    }
  }

  /// Renames the unusable file next to itself, so nothing is lost and the next write starts clean.
  private func moveAside(_ problem: StateProblem) -> StateProblem {
    let stamp = Int(Date().timeIntervalSince1970 * 1000)
    let label: String
    switch problem {
    case .corrupt: label = "corrupt"
    case .futureVersion(_, let found, _, _): label = "v\(found)"
    default: label = "unreadable"
    }
    let target = "\(statePath).\(label)-\(stamp)-\(getpid())"
    let movedTo = rename(statePath, target) == 0 ? target : nil
    switch problem {
    case .corrupt(let path, _, let detail): return .corrupt(path: path, movedTo: movedTo, detail: detail)
    case .futureVersion(let path, let found, let supported, _):
      return .futureVersion(path: path, found: found, supported: supported, movedTo: movedTo)
    case .unreadable(let path, let code, _): return .unreadable(path: path, errno: code, movedTo: movedTo)
    default: return problem
    }
  }

  static func encode(_ state: LaunchState) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    // Encoding plain value types cannot fail.
    return (try? encoder.encode(state)) ?? Data()
  }

  private struct VersionProbe: Decodable { var version: Int }

  static func decode(_ read: Result<[UInt8]?, DurableFile.Failure>, path: String) -> Result<LaunchState?, StateProblem>
  {
    let bytes: [UInt8]
    switch read {
    case .success(nil): return .success(nil)
    case .success(let some?): bytes = some
    case .failure(let failure): return .failure(.unreadable(path: path, errno: failure.errno, movedTo: nil))
    }
    guard !bytes.isEmpty else { return .failure(.corrupt(path: path, movedTo: nil, detail: "empty file")) }
    let data = Data(bytes)
    let decoder = JSONDecoder()
    do {
      let version = try decoder.decode(VersionProbe.self, from: data).version
      guard version <= LaunchState.currentVersion else {
        return .failure(.futureVersion(path: path, found: version, supported: LaunchState.currentVersion, movedTo: nil))
      }
      guard version >= 1 else {
        return .failure(.corrupt(path: path, movedTo: nil, detail: "invalid version \(version)"))
      }
      return .success(try decoder.decode(LaunchState.self, from: data))
    } catch {
      return .failure(.corrupt(path: path, movedTo: nil, detail: describe(error, byteCount: bytes.count)))
    }
  }

  private static func describe(_ error: any Error, byteCount: Int) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .dataCorrupted(let context):
      return "not valid JSON (\(byteCount) bytes): \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      return "missing field '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return
        "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))': \(context.debugDescription)"
    @unknown default:
      return "\(error)"
    }
  }
}
