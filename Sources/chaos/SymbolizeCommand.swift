import ArgumentParser
import ChaosKit
import Foundation

/// `chaos symbolize`: turns crash records into readable backtraces.
struct SymbolizeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "symbolize",
    abstract: "Symbolize the crash records in an events file or a crash report.",
    discussion: """
      Accepts an events file (NDJSON; every `crash` line is symbolized) or a crash report \
      left by the handler in a state directory (crash-<pid>-<start>.json).

        chaos symbolize /tmp/e.ndjson
        chaos symbolize state/crash-4242-1234567.json --json
      """)

  @Argument(help: "Events files or crash reports.")
  var files: [String]

  @Flag(help: "Print the symbolized frames as JSON.")
  var json = false

  func run() throws {
    let symbolizer = Symbolizer()
    var found = 0
    for file in files {
      let decoded: EventDecoder.Result
      do {
        decoded = try EventDecoder.decode(path: file)
      } catch {
        throw ValidationError("\(error)")
      }
      guard FileManager.default.fileExists(atPath: file) else { throw ValidationError("\(file): no such file") }
      for event in decoded.events where event.name == "crash" {
        found += 1
        let record = try CrashRecord(event: event)
        let backtrace = symbolizer.symbolize(record)
        if json {
          let encoder = JSONEncoder()
          encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
          print(String(decoding: try encoder.encode(backtrace), as: UTF8.self))
        } else {
          print(
            "\(file):\(event.line): \(record.signalName) (code \(record.code), addr \(record.addr)) on \(record.mainThread ? "the main thread" : "thread \(record.thread) \"\(record.threadName)\"") of pid \(record.pid), handler \(String(format: "%.1f", record.handlerLatencyMicroseconds)) µs"
          )
          print(backtrace.description)
        }
      }
    }
    if found == 0 { throw ValidationError("no crash record in \(files.joined(separator: ", "))") }
  }
}
