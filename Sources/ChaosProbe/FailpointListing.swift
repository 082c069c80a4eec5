import Failpoints

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// `CHAOS_LIST_FAILPOINTS=1`: the declared failpoints as one JSON object on stdout, so the
/// harness can check scenarios against the target (and `chaos explore` can aim at them).
enum FailpointListing {
  /// Prints `{"accepts_app": false, "failpoints": [...], "phases": {...}, "protocol": 2}` and
  /// exits 0. `phases` names the failpoints evaluated outside the launch (the organizer's own
  /// `protect.*` in the repair, `life.*` after the launch, and the app's, as declared).
  static func print(_ declared: [String], phases: [String: String], acceptsApp: Bool) -> Never {
    var allPhases = phases
    allPhases["protect.begin"] = "repair"
    allPhases["protect.finish"] = "repair"
    allPhases["life.*"] = "after_launch"
    let object: [String: Any] = [
      "protocol": ChaosProbe.protocolVersion,
      "failpoints": Array(Set(declared)).sorted(),
      "phases": allPhases,
      "accepts_app": acceptsApp,
    ]
    let line = Array(((EventLog.json(object) ?? "{}") + "\n").utf8)
    var written = 0
    while written < line.count {
      let count = line.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + written, $0.count - written) }
      if count < 0, errno == EINTR { continue }
      if count <= 0 { break }
      written += count
    }
    exit(0)
  }

  /// A configuration error as one line: what is wrong, where, and the declared names.
  static func oneLine(_ error: FailpointConfigurationError, declared: [String]) -> String {
    switch error {
    case .invalidSpec(let error):
      return "\(error.message) (at character \(error.offset + 1))"
    case .unknownName(let name, _, _, _):
      return "unknown failpoint '\(name)' (declared: \(Array(Set(declared)).sorted().joined(separator: ", ")))"
    }
  }
}
