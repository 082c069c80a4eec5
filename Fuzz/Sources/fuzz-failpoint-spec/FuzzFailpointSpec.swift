import CFuzzDriver
import Failpoints

// Any text as CHAOS_FAILPOINTS: a FailpointSpecError is fine, a crash or a hang is not.
// Only parses: the actions (segv, hang, kill, ...) are never run.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  check { () throws(FailpointSpecError) in _ = try FailpointSpecParser.parse(text) }
  check { () throws(FailpointSpecError) in _ = try FailpointSpecParser.parseActions(text, name: "fuzz") }
  return 0
}

private func check(_ body: () throws(FailpointSpecError) -> Void) {
  do {
    try body()
  } catch {
    precondition(error.offset >= 0, "negative offset in \(error)")
    _ = error.description
  }
}

/// The entry point SwiftPM links as `main` (see CFuzzDriver): libFuzzer's driver on `fuzz`.
@_cdecl("fuzz_failpoint_spec_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
  var argc = argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzz($0, size) } ?? 0 }
}
