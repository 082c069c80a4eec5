/// The project's one JSON string escaper: the state file, the harness's `CHAOS_APP` text and
/// ChaosProbe's events all write their strings through it.
extension StateJSON {
  /// Appends `value` as a JSON string (RFC 8259): the quote, the backslash and `/` escaped
  /// with a backslash, control characters as `\b \f \n \r \t` or `\u00XX`; everything else as
  /// its UTF-8 bytes (a Swift string is always valid UTF-8, so invalid UTF-8 is never written).
  ///
  /// `/` is written `\/`, as `JSONEncoder` (without `.withoutEscapingSlashes`) and
  /// `JSONSerialization` write it: the state file must stay byte for byte what `JSONEncoder`
  /// with `.sortedKeys` wrote (`StateJSONTests`), and the events were written by
  /// `JSONSerialization` before ChaosProbe formatted them by hand. Every JSON reader takes
  /// either form.
  package static func appendString(_ value: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    // Most strings (ids, paths, names) need no escape: copied whole.
    var value = value
    let copied: Bool = value.withUTF8 { text in
      guard
        !text.contains(where: {
          $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "/")
        })
      else { return false }
      bytes.append(contentsOf: text)
      return true
    }
    if copied {
      bytes.append(UInt8(ascii: "\""))
      return
    }
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
        bytes.append(UInt8(ascii: "\\"))
        bytes.append(byte)
      case 0x08: escape(UInt8(ascii: "b"), to: &bytes)
      case 0x0C: escape(UInt8(ascii: "f"), to: &bytes)
      case 0x0A: escape(UInt8(ascii: "n"), to: &bytes)
      case 0x0D: escape(UInt8(ascii: "r"), to: &bytes)
      case 0x09: escape(UInt8(ascii: "t"), to: &bytes)
      case 0..<0x20:
        escape(UInt8(ascii: "u"), to: &bytes)
        bytes.append(contentsOf: [UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  /// `value` as a JSON string, quotes included (`appendString`).
  package static func quoted(_ value: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(value.utf8.count + 2)
    appendString(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func escape(_ letter: UInt8, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\\"))
    bytes.append(letter)
  }
  private static let hex = Array("0123456789abcdef".utf8)
}
