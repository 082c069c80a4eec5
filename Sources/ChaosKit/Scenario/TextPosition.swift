/// Positions in input files, for errors that name the line and column of what is wrong.
enum TextPosition {
  /// Where the first byte that is not part of valid UTF-8 is: 1-based line, column = byte
  /// offset in that line + 1, and the byte; nil when all of it is valid UTF-8.
  static func firstInvalidUTF8(_ bytes: [UInt8]) -> (line: Int, column: Int, byte: UInt8)? {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var offset = 0
    var line = 1
    var lineStart = 0
    while true {
      switch parser.parseScalar(from: &iterator) {
      case .valid(let encoded):
        if encoded.count == 1, encoded.first == 0x0A {
          line += 1
          lineStart = offset + 1
        }
        offset += encoded.count
      case .error:
        return (line, offset - lineStart + 1, offset < bytes.count ? bytes[offset] : 0)
      case .emptyInput:
        return nil
      }
    }
  }

  /// Two lowercase hex digits.
  static func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }
}
