import CCrashCapture

extension LaunchOrganizer {
  /// A random (version 4) UUID in the uppercase form `UUID().uuidString` gave, from the
  /// kernel: one `getrandom` of 16 bytes (glibc 2.25, musl 1.1.20; not glibc 2.36's
  /// `arc4random_buf`, which Ubuntu 22.04, RHEL 9 and Amazon Linux lack), where Foundation's
  /// UUID opens and reads /dev/urandom. The standard generator when `getrandom` fails (a
  /// kernel before 3.17, a seccomp filter that refuses it).
  static func randomLaunchID() -> String {
    var bytes = [UInt8](repeating: 0, count: 16)
    let filled = bytes.withUnsafeMutableBytes { lcc_random_bytes($0.baseAddress!, 16) }
    if filled != 16 {
      var generator = SystemRandomNumberGenerator()
      bytes = withUnsafeBytes(of: (generator.next() as UInt64, generator.next() as UInt64)) { Array($0) }
    }
    bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
    bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 4122 variant
    let hex = Array("0123456789ABCDEF".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(36)
    for (index, byte) in bytes.enumerated() {
      if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
      text.append(hex[Int(byte >> 4)])
      text.append(hex[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}
