/// CRC-32 (IEEE 802.3, the zlib polynomial): tells a torn or bit-flipped state slot from a whole one.
enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
    return value
  }

  /// The checksum of `bytes`.
  static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
    finish(update(start, with: bytes))
  }

  /// Where a checksum computed in parts starts (`update` each part, then `finish`): the slot's
  /// checksum covers two separate ranges without copying them together.
  static let start: UInt32 = 0xFFFF_FFFF

  /// `crc` continued over `bytes`.
  static func update<Bytes: Sequence<UInt8>>(_ crc: UInt32, with bytes: Bytes) -> UInt32 {
    var crc = crc
    table.withUnsafeBufferPointer { table in
      let contiguous: Void? = bytes.withContiguousStorageIfAvailable { bytes in
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
      }
      if contiguous == nil {
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
      }
    }
    return crc
  }

  /// The checksum of everything `update` saw.
  static func finish(_ crc: UInt32) -> UInt32 { crc ^ 0xFFFF_FFFF }
}
