import CFuzzDriver
import ChaosKit
import Foundation

// Any bytes as an events file (NDJSON): an EventDecodingError is fine, a crash or a hang is not.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let result: EventDecoder.Result
  do {
    result = try EventDecoder.decode(Data(bytes: data, count: size), path: "fuzz.ndjson")
  } catch {
    precondition(error.line >= 1, "error without a line: \(error)")
    return 0
  }
  for event in result.events {
    _ = event.fields.values.map(\.description)
    if event.name == "crash", let record = try? CrashRecord(event: event) {
      _ = record.handlerLatencyMicroseconds
    }
  }
  return 0
}

/// The entry point SwiftPM links as `main` (see CFuzzDriver): libFuzzer's driver on `fuzz`.
@_cdecl("fuzz_events_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  var argc = argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
