/// The documented range of every persisted value. A state outside it was not written by this
/// library: it is reported as corrupt and moved aside like any unreadable file, so a doctored
/// or damaged file can never make the launch trap or report nonsense.
extension LaunchState {
  /// Counts saturate here: a crash loop this long has long been in protect mode.
  public static let maximumCount = 1_000_000
  /// The highest protect level a state may record (levels are 1-based).
  public static let maximumLevel = 10_000
  /// More unfinished launches than this in one directory is not a real state.
  public static let maximumLaunchesInProgress = 4096
  /// Longest identifier (launch id, boot id, executable id, cause type) accepted.
  public static let maximumIdentifierLength = 512
  /// Longest free text (a crash cause's detail) accepted.
  public static let maximumDetailLength = 65_536

  /// Why this state is outside the documented range, or nil when it is within it.
  public var rangeProblem: String? {
    guard version == LaunchState.currentVersion else {
      return "version \(version) is not \(LaunchState.currentVersion)"
    }
    guard (0...Self.maximumCount).contains(consecutiveCrashes) else {
      return "consecutiveCrashes \(consecutiveCrashes) outside 0...\(Self.maximumCount)"
    }
    if let level = attemptedProtectLevel, !(1...Self.maximumLevel).contains(level) {
      return "attemptedProtectLevel \(level) outside 1...\(Self.maximumLevel)"
    }
    guard launchesInProgress.count <= Self.maximumLaunchesInProgress else {
      return "\(launchesInProgress.count) launches in progress (at most \(Self.maximumLaunchesInProgress))"
    }
    for (index, record) in launchesInProgress.enumerated() {
      if let problem = record.rangeProblem { return "launchesInProgress[\(index)]: \(problem)" }
    }
    if let executableID, let problem = Self.identifierProblem(executableID, "executableID") { return problem }
    if let cause = lastCrashCause, let problem = cause.rangeProblem { return "lastCrashCause: \(problem)" }
    if let exit = lastUncountedExit {
      guard exit.pid > 0 else { return "lastUncountedExit: pid \(exit.pid) is not positive" }
      guard Self.isTime(exit.decidedSeconds) else {
        return "lastUncountedExit: decidedAt \(exit.decidedSeconds) is not a time"
      }
    }
    if let outage = lastDependencyOutage {
      if let problem = Self.identifierProblem(outage.dependency, "lastDependencyOutage.dependency") { return problem }
      guard (1...Self.maximumCount).contains(outage.launchesInARow) else {
        return "lastDependencyOutage: launchesInARow \(outage.launchesInARow) outside 1...\(Self.maximumCount)"
      }
      guard outage.pid > 0 else { return "lastDependencyOutage: pid \(outage.pid) is not positive" }
      guard Self.isTime(outage.decidedSeconds) else {
        return "lastDependencyOutage: decidedAt \(outage.decidedSeconds) is not a time"
      }
    }
    return nil
  }

  static func identifierProblem(_ text: String, _ name: String) -> String? {
    guard !text.isEmpty else { return "\(name) is empty" }
    guard text.utf8.count <= maximumIdentifierLength else {
      return "\(name) is \(text.utf8.count) bytes long (at most \(maximumIdentifierLength))"
    }
    return nil
  }

  /// Seconds since 1970, not before it and not absurdly far after it (year 10000).
  static func isTime(_ seconds: Double) -> Bool { seconds.isFinite && seconds >= 0 && seconds < 253_402_300_800 }
}

extension LaunchRecord {
  /// Why this sentinel makes no sense, or nil.
  var rangeProblem: String? {
    guard process.pid > 0 else { return "pid \(process.pid) is not positive" }
    if let problem = LaunchState.identifierProblem(process.bootID, "bootID") { return problem }
    if let machine = process.machine, let problem = LaunchState.identifierProblem(machine, "machine") {
      return problem
    }
    if let problem = LaunchState.identifierProblem(launchID, "launchID") { return problem }
    guard LaunchState.isTime(startedSeconds) else { return "startedAt \(startedSeconds) is not a time" }
    if let stop = stopRequestedSeconds, !LaunchState.isTime(stop) {
      return "stopRequestedAt \(stop) is not a time"
    }
    if let waitingFor, let problem = LaunchState.identifierProblem(waitingFor, "waitingFor") { return problem }
    return nil
  }
}

extension CrashCause {
  /// Why this cause makes no sense, or nil.
  var rangeProblem: String? {
    if let problem = LaunchState.identifierProblem(type, "type") { return problem }
    if let detail, detail.utf8.count > LaunchState.maximumDetailLength {
      return "detail is \(detail.utf8.count) bytes long (at most \(LaunchState.maximumDetailLength))"
    }
    if let pid, pid <= 0 { return "pid \(pid) is not positive" }
    guard LaunchState.isTime(recordedSeconds) else { return "recordedAt \(recordedSeconds) is not a time" }
    return nil
  }

  /// The same cause with its text cut to what a state may hold (so a long reporter message
  /// never makes the next read reject the file); 3 bytes spare for a character cut in half.
  func clamped() -> CrashCause {
    var cause = self
    if cause.type.isEmpty { cause.type = "unknown" }
    cause.type = String(decoding: cause.type.utf8.prefix(LaunchState.maximumIdentifierLength - 3), as: UTF8.self)
    if let detail {
      cause.detail = String(decoding: detail.utf8.prefix(LaunchState.maximumDetailLength - 3), as: UTF8.self)
    }
    return cause
  }
}

extension LaunchState {
  /// A dependency's name as a state may hold it: never empty, cut to an identifier's length
  /// (3 bytes spare for a character cut in half).
  @usableFromInline
  static func dependencyName(_ name: String) -> String {
    let text = name.isEmpty ? "dependency" : name
    return String(decoding: text.utf8.prefix(maximumIdentifierLength - 3), as: UTF8.self)
  }
}
