import Foundation

/// Finding the program a scenario names, checking the failpoints it uses against the target's
/// listing, and copying it for `new_binary`.
extension ScenarioRunner {
  func resolveTarget(_ scenario: Scenario) throws(ScenarioError) -> String {
    let name = options.targetOverride ?? scenario.target
    // The usual case first, before the other candidates cost a URL, a getcwd and a search
    // for a product beside `chaos` on every scenario.
    if name == "chaos-target", let reference = options.referenceTarget,
      FileManager.default.isExecutableFile(atPath: reference)
    {
      return reference
    }
    var candidates: [String] = []
    if name == "chaos-target", let reference = options.referenceTarget { candidates.append(reference) }
    if name.hasPrefix("/") {
      candidates.append(name)
    } else {
      candidates.append(
        URL(fileURLWithPath: scenario.path).deletingLastPathComponent().appendingPathComponent(name).path)
      candidates.append(FileManager.default.currentDirectoryPath + "/" + name)
      // A bare name is also a product built beside the running `chaos` or test bundle.
      if !name.contains("/") { candidates.append(ScenarioCase.executable(name)) }
    }
    if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
    let reason =
      candidates.contains(where: { FileManager.default.fileExists(atPath: $0) }) ? "is not executable" : "not found"
    throw ScenarioError(
      path: scenario.path, line: options.targetOverride == nil ? scenario.targetLine : 0, column: 0,
      message: "target '\(name)' \(reason) (looked in: \(candidates.joined(separator: ", ")))"
        + (options.targetOverride == nil ? "" : " (from --target)"))
  }

  /// Every `failpoints:` name checked against what the target declares, when it can list them.
  func checkFailpointNames(_ scenario: Scenario, target: String) throws(ScenarioError) {
    for spec in scenario.launches where !spec.failpoints.isEmpty {
      guard
        let listing = options.failpointListing
          ?? TargetFailpoints.list(target: target, app: Self.appJSON(scenario.app, spec.app)),
        let unknown = TargetFailpoints.firstUndeclared(in: spec.failpoints, listing: listing)
      else { continue }
      throw ScenarioError(
        path: scenario.path, line: spec.failpointsLine, column: 0,
        message:
          "unknown failpoint '\(unknown)' for target \(target) (declared: \(listing.failpoints.joined(separator: ", ")))"
      )
    }
  }

  func copyBinary(_ target: String, into directory: String) throws(ScenarioError) -> String {
    let copy = directory + "/" + URL(fileURLWithPath: target).lastPathComponent
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    if let failure = Self.copyExecutable(target, to: copy) {
      throw ScenarioError(
        path: target, line: 0, column: 0, message: "cannot copy the target for new_binary: \(failure)")
    }
    return copy
  }

  /// Copies with close-on-exec descriptors: a child forked by another job while the copy is
  /// open for writing would otherwise keep it open, and exec of the copy fails with ETXTBSY.
  static func copyExecutable(_ source: String, to destination: String) -> String? {
    let input = open(source, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { return "open \(source): \(String(cString: strerror(errno)))" }
    defer { close(input) }
    let output = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
    guard output >= 0 else { return "create \(destination): \(String(cString: strerror(errno)))" }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      if count <= 0 {
        close(output)
        return count == 0 ? nil : "read \(source): \(String(cString: strerror(errno)))"
      }
      var written = 0
      while written < count {
        let result = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
        if result < 0, errno == EINTR { continue }
        guard result > 0 else {
          close(output)
          return "write \(destination): \(String(cString: strerror(errno)))"
        }
        written += result
      }
    }
  }
}
