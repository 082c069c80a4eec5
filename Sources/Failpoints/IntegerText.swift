/// Integer text to a value, one reader for the package's libraries (failpoint specs, `/proc`,
/// the environment, the state file's JSON numbers).
///
/// It reads what `T(text, radix:)` reads: an optional `+` or `-`, then one or more digits, no
/// spaces. The standard library's reader is specialized once per string type and integer type
/// (1.3–2 KiB each, 13 KiB in a protected program); this one is compiled once.
package enum IntegerText {
  /// `text` as a `T`, in `radix` (10 or 16); nil when it is not an integer or `T` cannot hold it.
  @inline(__always)
  package static func value<T: FixedWidthInteger>(_ text: Substring, radix: Int = 10) -> T? {
    guard let (negative, magnitude) = signAndMagnitude(text, radix: UInt64(radix)) else { return nil }
    guard negative, magnitude != 0 else { return T(exactly: magnitude) }
    // -magnitude fits when magnitude - 1 ≤ T.max, also for T.min itself.
    guard T.isSigned, let belowMagnitude = T(exactly: magnitude - 1) else { return nil }
    return 0 - belowMagnitude - 1
  }

  /// `text` as a `T`, in `radix` (10 or 16); nil when it is not an integer or `T` cannot hold it.
  @inline(__always)
  package static func value<T: FixedWidthInteger>(_ text: String, radix: Int = 10) -> T? {
    value(text[...], radix: radix)
  }

  /// The sign and the digits' value; nil without digits, with any other character, or past
  /// `UInt64.max`.
  package static func signAndMagnitude(_ text: Substring, radix: UInt64) -> (negative: Bool, magnitude: UInt64)? {
    var bytes = text.utf8[...]
    let negative = bytes.first == UInt8(ascii: "-")
    if negative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
    guard !bytes.isEmpty else { return nil }
    var magnitude: UInt64 = 0
    for byte in bytes {
      let digit: UInt64
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
      default: return nil
      }
      guard digit < radix else { return nil }
      let (times, overflow) = magnitude.multipliedReportingOverflow(by: radix)
      let (sum, overflow2) = times.addingReportingOverflow(digit)
      guard !overflow, !overflow2 else { return nil }
      magnitude = sum
    }
    return (negative, magnitude)
  }
}
