import ChaosKit
import Foundation
import TestSupport
import Testing

/// Targets that are not the reference app: a C program with its own counter (no
/// LaunchProtection, no ChaosProbe), so the runner never quietly assumes the reference app.
@Suite("Foreign targets")
struct ForeignTargetTests {
  @Test("C target scenario", arguments: ScenarioCase.all(in: "Tests/Fixtures/c-target-scenarios"))
  func cTarget(_ scenario: ScenarioCase) {
    let result = scenario.run(target: nil)
    #expect(result.passed, Comment(rawValue: result.report))
  }

  @Test("a misspelt failpoint is an error at its line, naming the declared ones, before any launch")
  func misspeltFailpoint() throws {
    let folder = TemporaryDirectory("misspelt")
    try """
    name: misspelt
    target: c-target
    launches:
      - expect: { outcome: finished }
      - failpoints: "task.srve=segv"
        expect: { outcome: crash }
    """.write(toFile: folder.file("misspelt.yaml"), atomically: true, encoding: .utf8)
    let result = try #require(ScenarioCase.all(in: folder.path).first).run(
      target: nil, artifacts: folder.file("artifacts"))
    #expect(result.status == .error)
    #expect(result.processes.isEmpty, "nothing ran")
    let message = result.messages.joined()
    #expect(message.contains("misspelt.yaml:5:"), "names the line: \(message)")
    #expect(message.contains("unknown failpoint 'task.srve'"), "\(message)")
    #expect(message.contains("task.serve"), "lists the declared names: \(message)")
  }

  @Test("a process that ends unexpectedly shows the last lines of its stderr")
  func stderrTail() throws {
    let folder = TemporaryDirectory("stderr-tail")
    // The C target says on stderr which failpoint fired before it exits.
    try """
    name: stderr tail
    target: c-target
    launches:
      - failpoints: "task.serve=exit(7)"
        expect: { outcome: finished }
    """.write(toFile: folder.file("tail.yaml"), atomically: true, encoding: .utf8)
    let result = try #require(ScenarioCase.all(in: folder.path).first).run(
      target: nil, artifacts: folder.file("artifacts"))
    #expect(result.status == .failed)
    let message = result.messages.joined()
    #expect(message.contains("expected outcome finished, saw exit (exit(7))"), "\(message)")
    #expect(message.contains("stderr (last lines):\n    c-target: failpoint task.serve fired: exit(7)"), "\(message)")
  }

  @Test("a target name that does not resolve is an error naming the file and the target: line")
  func missingTarget() throws {
    let folder = TemporaryDirectory("missing-target")
    try "name: missing\ndescription: x\ntarget: no-such-program\nlaunches:\n  - expect: {}\n"
      .write(toFile: folder.file("missing.yaml"), atomically: true, encoding: .utf8)
    let result = try #require(ScenarioCase.all(in: folder.path).first).run(
      target: nil, artifacts: folder.file("artifacts"))
    #expect(result.status == .error)
    #expect(
      result.messages.joined().contains("missing.yaml:3:1: target 'no-such-program' not found"), "\(result.messages)")
  }
}
