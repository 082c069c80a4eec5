import CFuzzDriver
import ChaosKit
import Foundation

// What `chaos symbolize` reads: an events file or a crash report → EventDecoder → CrashRecord, then
// the Symbolizer's own parsing (module map, addresses, offsets) with no tools, so no process is
// spawned per input. Errors are fine; a crash or a hang is not.

/// No llvm-symbolizer, swift-demangle or addr2line: only the in-process work runs.
private let symbolizer = Symbolizer(llvmSymbolizer: nil, demangler: nil, addr2line: nil)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Data(bytes: data, count: size)
  if let record = try? CrashRecord(json: bytes) { symbolize(record) }
  guard let result = try? EventDecoder.decode(bytes, path: "fuzz.ndjson") else { return 0 }
  for event in result.events where event.name == "crash" {
    if let record = try? CrashRecord(event: event) { symbolize(record) }
  }
  return 0
}

private func symbolize(_ record: CrashRecord) {
  _ = record.handlerLatencyMicroseconds
  let backtrace = symbolizer.symbolize(record)
  precondition(backtrace.frames.count == record.frames.count, "symbolize lost or invented frames")
  _ = backtrace.description
}

/// The entry point SwiftPM links as `main` (see CFuzzDriver): libFuzzer's driver on `fuzz`.
@_cdecl("fuzz_crash_record_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  var argc = argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
