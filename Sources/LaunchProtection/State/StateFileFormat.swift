#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The bytes of the state file: two fixed-size slots, each a checksummed, sequence-numbered
/// copy of the state (as LMDB's two meta pages). An update rewrites the older slot in place, so
/// a write torn by a power cut damages only that slot and the reader falls back to the other.
///
/// Each slot is one line of JSON padded with spaces to the slot size, so `cat` and `jq` still
/// read the file (two objects; the one with the higher `seq` is the state):
///
///     {"slot":"launch-state","seq":"0000000000000007","len":"0000000312","crc":"1a2b3c4d","state":{…}}
///
/// A file holding a bare `LaunchState` JSON object (written by version 1 of this library, or
/// by a tool) is read as well; the next update converts it.
enum StateFileFormat {
  /// The smallest slot; slots grow in powers of two when a state does not fit.
  static let minimumSlotSize = 4096

  /// Where the next in-place write can go.
  enum Layout: Equatable {
    /// No file, a bare JSON file, or one that was moved aside: the next write creates the file.
    case none
    /// Two slots of `slotSize` bytes; `newest` (0 or 1) holds sequence number `sequence`.
    case slots(slotSize: Int, newest: Int, sequence: UInt64)
  }

  /// Why a slotted file holds no usable state.
  struct Damage: Error {
    var detail: String
  }

  /// What a read found.
  struct Decoded {
    var stateJSON: [UInt8]
    var layout: Layout
  }

  private static let prefix = Array(#"{"slot":"launch-state","seq":""#.utf8)
  private static let lengthKey = Array(#"","len":""#.utf8)
  private static let checksumKey = Array(#"","crc":""#.utf8)
  private static let stateKey = Array(#"","state":"#.utf8)
  private static let sequenceDigits = 16
  private static let lengthDigits = 10
  private static let checksumDigits = 8
  static let headerLength =
    prefix.count + sequenceDigits + lengthKey.count + lengthDigits + checksumKey.count + checksumDigits
    + stateKey.count

  /// Whether `bytes` start like a slotted file (otherwise they are read as bare JSON).
  static func isSlotted(_ bytes: [UInt8]) -> Bool { bytes.starts(with: prefix) }

  /// The newest valid slot's state JSON, or a reason why there is none.
  static func decodeSlots(_ bytes: [UInt8]) -> Result<Decoded, Damage> {
    guard bytes.count % 2 == 0, bytes.count >= 2 * minimumSlotSize else {
      return .failure(
        Damage(
          detail: "slotted state file of \(bytes.count) bytes (expected two equal slots of at least \(minimumSlotSize))"
        ))
    }
    let slotSize = bytes.count / 2
    // Both headers are read in place; the checksum is computed for the newer slot first, and
    // for the other only when the newer is damaged: the common read checks one slot, not two.
    var best: (index: Int, sequence: UInt64, json: Range<Int>)?
    bytes.withUnsafeBufferPointer { all in
      // Two named slots, not arrays: a fresh process would build array metadata for them.
      let slot0 = UnsafeBufferPointer(rebasing: all[0..<slotSize])
      let slot1 = UnsafeBufferPointer(rebasing: all[slotSize..<(2 * slotSize)])
      let header0 = parseHeader(slot0)
      let header1 = parseHeader(slot1)
      func take(_ index: Int, _ slot: UnsafeBufferPointer<UInt8>, _ header: Header?) -> Bool {
        guard let header, isWhole(slot, header) else { return false }
        let base = index * slotSize
        best = (index, header.sequence, (base + header.json.lowerBound)..<(base + header.json.upperBound))
        return true
      }
      if let first = header0, let second = header1, second.sequence > first.sequence {
        if !take(1, slot1, header1) { _ = take(0, slot0, header0) }
      } else if !take(0, slot0, header0) {
        _ = take(1, slot1, header1)
      }
    }
    guard let best else { return .failure(Damage(detail: "neither of the two state slots is whole (torn or damaged)")) }
    return .success(
      Decoded(
        stateJSON: Array(bytes[best.json]),
        layout: .slots(slotSize: slotSize, newest: best.index, sequence: best.sequence)))
  }

  /// A slot's header: its sequence number, the range of its state JSON and the checksum it claims.
  private struct Header {
    var sequence: UInt64
    var json: Range<Int>
    var checksum: UInt32
  }

  /// One slot's header, when it parses and the JSON it announces ends inside the slot.
  private static func parseHeader(_ slot: UnsafeBufferPointer<UInt8>) -> Header? {
    guard slot.count > headerLength + 1, slot.starts(with: prefix) else { return nil }
    var offset = prefix.count
    func field(_ digits: Int, hex: Bool, then key: [UInt8]) -> UInt64? {
      var value: UInt64 = 0
      for byte in slot[offset..<(offset + digits)] {
        // At most 16 digits: no overflow.
        if isDecimalDigit(byte) {
          value = value * (hex ? 16 : 10) + UInt64(byte - 0x30)
        } else if hex, byte >= 0x61 && byte <= 0x66 {
          value = value * 16 + UInt64(byte - 0x61 + 10)
        } else {
          return nil
        }
      }
      guard slot[(offset + digits)...].starts(with: key) else { return nil }
      offset += digits + key.count
      return value
    }
    guard let sequence = field(sequenceDigits, hex: false, then: lengthKey),
      let length = field(lengthDigits, hex: false, then: checksumKey),
      let checksum = field(checksumDigits, hex: true, then: stateKey),
      length <= UInt64(slot.count - headerLength - 1)
    else { return nil }
    let end = headerLength + Int(length)
    guard slot[end] == UInt8(ascii: "}") else { return nil }
    return Header(sequence: sequence, json: headerLength..<end, checksum: UInt32(checksum))
  }

  /// Whether the slot's checksum matches what its header claims.
  private static func isWhole(_ slot: UnsafeBufferPointer<UInt8>, _ header: Header) -> Bool {
    let sequenceText = UnsafeBufferPointer(rebasing: slot[prefix.count..<(prefix.count + sequenceDigits)])
    return checksumOf(sequenceDigits: sequenceText, json: UnsafeBufferPointer(rebasing: slot[header.json]))
      == header.checksum
  }

  /// The largest sequence number a slot can hold; past it the store starts a new file at 1.
  static let maximumSequence: UInt64 = 9_999_999_999_999_999

  /// Covers the sequence number too (its 16 digits, then the JSON), so a flipped digit cannot
  /// make a stale slot the newest.
  private static func checksumOf<Digits: Sequence<UInt8>, JSON: Sequence<UInt8>>(
    sequenceDigits: Digits, json: JSON
  ) -> UInt32 {
    CRC32.finish(CRC32.update(CRC32.update(CRC32.start, with: sequenceDigits), with: json))
  }

  /// A whole slot of `slotSize` bytes holding `json` as sequence number `sequence`; nil when it does not fit.
  static func slot(json: [UInt8], sequence: UInt64, slotSize: Int) -> [UInt8]? {
    guard headerLength + json.count + 2 <= slotSize, sequence <= maximumSequence else { return nil }
    var header = prefix
    header.reserveCapacity(headerLength)
    appendDigits(sequence, width: sequenceDigits, radix: 10, to: &header)
    let sequenceText = header[prefix.count...]
    let checksum = checksumOf(sequenceDigits: sequenceText, json: json)
    header += lengthKey
    appendDigits(UInt64(json.count), width: lengthDigits, radix: 10, to: &header)
    header += checksumKey
    appendDigits(UInt64(checksum), width: checksumDigits, radix: 16, to: &header)
    header += stateKey
    // memset and memcpy into one uninitialized buffer: appending 4 KiB of padding, or
    // `Array(repeating:)`, go byte by byte.
    let bytes = [UInt8](unsafeUninitializedCapacity: slotSize) { slot, count in
      let base = slot.baseAddress!
      memset(base, Int32(UInt8(ascii: " ")), slotSize)
      header.withUnsafeBufferPointer { _ = memcpy(base, $0.baseAddress!, headerLength) }
      json.withUnsafeBufferPointer {
        if let start = $0.baseAddress { _ = memcpy(base + headerLength, start, json.count) }
      }
      base[headerLength + json.count] = UInt8(ascii: "}")
      base[slotSize - 1] = UInt8(ascii: "\n")
      count = slotSize
    }
    return bytes
  }

  /// A whole new file: `json` in slot 0 as `sequence`, slot 1 empty (spaces), slots as small as fit.
  static func file(json: [UInt8], sequence: UInt64) -> (bytes: [UInt8], slotSize: Int) {
    var slotSize = minimumSlotSize
    while headerLength + json.count + 2 > slotSize { slotSize *= 2 }
    // `slotSize` was chosen so that the slot fits.
    var bytes = slot(json: json, sequence: min(sequence, maximumSequence), slotSize: slotSize) ?? []
    bytes += repeatElement(UInt8(ascii: " "), count: slotSize - 1)
    bytes.append(UInt8(ascii: "\n"))
    return (bytes, slotSize)
  }

  /// `value` in `radix` (lowercase), zero-padded to `width` digits (it always fits).
  private static func appendDigits(_ value: UInt64, width: Int, radix: UInt64, to bytes: inout [UInt8]) {
    let start = bytes.count
    bytes += repeatElement(UInt8(ascii: "0"), count: width)
    var rest = value
    var index = start + width - 1
    while rest > 0, index >= start {
      let digit = UInt8(rest % radix)
      bytes[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
      rest /= radix
      index -= 1
    }
  }

  private static func isDecimalDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
