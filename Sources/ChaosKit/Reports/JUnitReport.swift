import Foundation

/// JUnit XML as Jenkins and the GitHub Actions JUnit reporters read it: one `testsuite` per
/// scenario group, one `testcase` per scenario, failures with their text, output attached.
package enum JUnitReport {
  /// The XML document.
  package static func render(_ results: [ScenarioResult]) -> String {
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    let failures = results.filter { $0.status == .failed }.count
    let skipped = results.filter(\.isSkipped).count
    let errors = results.filter { $0.status == .error }.count - skipped
    let total = results.reduce(0) { $0 + $1.seconds }
    xml +=
      "<testsuites name=\"chaos\" tests=\"\(results.count)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"\(skipped)\" time=\"\(seconds(total))\">\n"
    for (group, cases) in Dictionary(grouping: results, by: \.group).sorted(by: { $0.key < $1.key }) {
      let groupFailures = cases.filter { $0.status == .failed }.count
      let groupSkipped = cases.filter(\.isSkipped).count
      let groupErrors = cases.filter { $0.status == .error }.count - groupSkipped
      xml +=
        "  <testsuite name=\"\(escape(group))\" tests=\"\(cases.count)\" failures=\"\(groupFailures)\" errors=\"\(groupErrors)\" skipped=\"\(groupSkipped)\" time=\"\(seconds(cases.reduce(0) { $0 + $1.seconds }))\">\n"
      for result in cases {
        xml +=
          "    <testcase classname=\"\(escape(group))\" name=\"\(escape(result.name))\" file=\"\(escape(result.path))\" time=\"\(seconds(result.seconds))\""
        if result.passed {
          xml += "/>\n"
          continue
        }
        xml += ">\n"
        if let skip = result.skipped {
          xml += "      <skipped message=\"\(escape(skip.description))\"/>\n    </testcase>\n"
          continue
        }
        let element = result.status == .error ? "error" : "failure"
        let message = result.messages.first.map { String($0.prefix(500)) } ?? result.status.rawValue
        xml +=
          "      <\(element) message=\"\(escape(message))\" type=\"\(result.status)\">\(escape(result.messages.joined(separator: "\n\n")))</\(element)>\n"
        let output = attachments(result)
        xml += "      <system-out>\(escape(output.out))</system-out>\n"
        xml += "      <system-err>\(escape(output.err))</system-err>\n"
        xml += "    </testcase>\n"
      }
      xml += "  </testsuite>\n"
    }
    xml += "</testsuites>\n"
    return xml
  }

  /// The stdout and stderr of the failing processes, labelled by launch.
  private static func attachments(_ result: ScenarioResult) -> (out: String, err: String) {
    var out = ""
    var err = ""
    for process in result.processes where !process.failures.isEmpty {
      let label = "--- launch \(process.launch) pid \(process.pid) (\(process.artifacts))\n"
      out +=
        label + ((try? String(contentsOfFile: process.artifacts + "/stdout.txt", encoding: .utf8)) ?? "").suffix(20_000)
      err +=
        label + ((try? String(contentsOfFile: process.artifacts + "/stderr.txt", encoding: .utf8)) ?? "").suffix(20_000)
    }
    return (out, err)
  }

  private static func seconds(_ value: Double) -> String { String(format: "%.3f", value) }

  private static func escape(_ text: String) -> String { Markup.escape(text) }
}
