/// CRC-32 (IEEE 802.3, the zlib polynomial): tells a torn or bit-flipped state slot from a whole one.
enum CRC32 {
  /// The checksum of `bytes`.
  static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
    finish(update(start, with: bytes))
  }

  /// Where a checksum computed in parts starts (`update` each part, then `finish`): the slot's
  /// checksum covers two separate ranges without copying them together.
  static let start: UInt32 = 0xFFFF_FFFF

  /// `crc` continued over `bytes`.
  static func update<Bytes: Sequence<UInt8>>(_ crc: UInt32, with bytes: Bytes) -> UInt32 {
    let contiguous = bytes.withContiguousStorageIfAvailable { update(crc, with: UnsafeRawBufferPointer($0)) }
    if let contiguous { return contiguous }
    var crc = crc
    tables.withUnsafeBufferPointer { table in
      for byte in bytes { crc = step(crc, byte, table) }
    }
    return crc
  }

  /// Slicing-by-8: eight bytes a step through eight independent table lookups, where the
  /// byte-at-a-time loop waits on each lookup before the next (about 4× faster on a state slot).
  static func update(_ crc: UInt32, with bytes: UnsafeRawBufferPointer) -> UInt32 {
    // The running value stays local to the closure: a captured one is stored and reloaded
    // every step, which adds a store-to-load delay to the loop's one dependency chain.
    tables.withUnsafeBufferPointer { table in
      var crc = crc
      var offset = 0
      while offset + 8 <= bytes.count {
        let low = crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
        crc =
          table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
          ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
          ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
          ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
        offset += 8
      }
      while offset < bytes.count {
        crc = step(crc, bytes[offset], table)
        offset += 1
      }
      return crc
    }
  }

  /// One byte, through table 0.
  @inline(__always)
  private static func step(_ crc: UInt32, _ byte: UInt8, _ table: UnsafeBufferPointer<UInt32>) -> UInt32 {
    table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
  }

  /// The checksum of everything `update` saw.
  static func finish(_ crc: UInt32) -> UInt32 { crc ^ 0xFFFF_FFFF }
}
