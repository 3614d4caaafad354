/// Decodes the bytes a terminal sends into keys, chunk by chunk: a key whose bytes are split
/// across two reads (an arrow's escape sequence, a Chinese character's UTF-8) is decoded when
/// its last byte arrives.
///
/// It never fails and never loses input: a malformed or truncated escape sequence becomes
/// `.unknown(bytes)` and the bytes after it are decoded as usual; invalid UTF-8 becomes U+FFFD.
///
/// A lone Escape byte is ambiguous (it also starts every escape sequence), so the decoder holds
/// it until either more bytes arrive or the app calls `flush()` after a short pause with no
/// input (`Terminal.run` does this after `escapeDelay`). Escape then a printable character in
/// the same read is an Alt-key chord (`.alt("b")`). A bracketed paste (`ESC [ 200 ~` … `ESC [ 201 ~`)
/// is one `.paste(text)`, whatever it contains.
///
/// ```swift
/// var decoder = KeyDecoder()
/// decoder.decode([0x1b, 0x5b])          // []  (the start of a sequence)
/// decoder.decode([0x41, 0x71])          // [.up, .character("q")]
/// decoder.decode([0x1b])                // []
/// decoder.flush()                       // [.escape]
/// ```
public struct KeyDecoder: Sendable {
    private enum State: Sendable {
        case ground
        /// After ESC.
        case escape
        /// After ESC [, collecting parameter and intermediate bytes.
        case csi
        /// After ESC O.
        case ss3
        /// Inside a UTF-8 sequence: how many continuation bytes are still needed, and the valid
        /// range of the next one.
        case utf8(remaining: Int, next: ClosedRange<UInt8>)
        /// Inside a bracketed paste (after `ESC [ 200 ~`): collecting its bytes until
        /// `ESC [ 201 ~`.
        case paste
    }

    /// The end of a bracketed paste.
    private static let pasteEnd: [UInt8] = [0x1b, 0x5b, 0x32, 0x30, 0x31, 0x7e]
    /// The most bytes one paste collects before it is delivered (a paste whose end never came).
    private static let maximumPasteLength = 1 << 20

    /// The longest escape sequence kept before it is given up as unknown.
    private static let maximumSequenceLength = 32

    private var state: State = .ground
    private var pending: [UInt8] = []

    /// Creates a decoder with no pending input.
    public init() {}

    /// Whether bytes are held waiting for the rest of a key (an escape sequence, a UTF-8
    /// character, or a lone Escape). The app should call `flush()` if nothing more arrives soon.
    public var hasPendingInput: Bool { !pending.isEmpty && !isPasting }

    /// Whether a bracketed paste has started and not ended yet: its bytes are held, and
    /// `flush()` leaves them (a long paste may arrive in several reads, with pauses).
    public var isPasting: Bool { if case .paste = state { true } else { false } }

    /// Decodes a chunk of bytes, returning the keys it completes. Bytes of an unfinished key are
    /// kept for the next call.
    ///
    /// ```swift
    /// decoder.decode(Array("中".utf8).prefix(2))   // []
    /// decoder.decode(Array("中".utf8).suffix(1))   // [.character("中")]
    /// ```
    public mutating func decode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [Key] {
        var keys: [Key] = []
        for byte in bytes { feed(byte, into: &keys) }
        return keys
    }

    /// Ends the pending input: a lone Escape becomes `.escape`, an unfinished escape sequence
    /// becomes `.unknown(bytes)`, an unfinished UTF-8 character becomes U+FFFD. Call it when no
    /// more bytes arrived for a short while.
    ///
    /// ```swift
    /// decoder.decode([0x1b])   // []
    /// decoder.flush()          // [.escape]
    /// ```
    public mutating func flush() -> [Key] {
        if isPasting { return [] }
        defer { reset() }
        switch state {
        case .ground, .paste: return []
        case .escape: return [.escape]
        case .csi, .ss3: return [.unknown(pending)]
        case .utf8: return [.character(Self.replacement)]
        }
    }

    private static let replacement: Character = "\u{FFFD}"

    private mutating func reset() {
        state = .ground
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func feed(_ byte: UInt8, into keys: inout [Key]) {
        switch state {
        case .ground:
            ground(byte, into: &keys)

        case .escape:
            switch byte {
            case 0x5b:  // [
                pending.append(byte)
                state = .csi
            case 0x4f:  // O
                pending.append(byte)
                state = .ss3
            case 0x20...0x7e:
                // ESC then a printable character, in one read: an Alt-key chord.
                keys.append(.alt(Character(Unicode.Scalar(byte))))
                reset()
            default:
                // ESC followed by anything else: the Escape key, then that byte on its own.
                keys.append(.escape)
                reset()
                ground(byte, into: &keys)
            }

        case .csi:
            switch byte {
            case 0x20...0x3f:  // parameter and intermediate bytes
                pending.append(byte)
                if pending.count >= Self.maximumSequenceLength {
                    keys.append(.unknown(pending))
                    reset()
                }
            case 0x40...0x7e:  // final byte
                pending.append(byte)
                if pending == [0x1b, 0x5b, 0x32, 0x30, 0x30, 0x7e] {   // ESC [ 200 ~: a paste starts
                    pending.removeAll(keepingCapacity: true)
                    state = .paste
                    return
                }
                keys.append(Self.csiKey(pending))
                reset()
            default:
                // A control byte, another ESC, or a non-ASCII byte inside the sequence: the
                // sequence is malformed. Report it and decode the byte afresh.
                keys.append(.unknown(pending))
                reset()
                ground(byte, into: &keys)
            }

        case .paste:
            pending.append(byte)
            if pending.count >= Self.pasteEnd.count, pending.suffix(Self.pasteEnd.count).elementsEqual(Self.pasteEnd) {
                pending.removeLast(Self.pasteEnd.count)
                keys.append(.paste(String(decoding: pending, as: UTF8.self)))
                reset()
            } else if pending.count >= Self.maximumPasteLength {
                keys.append(.paste(String(decoding: pending, as: UTF8.self)))
                pending.removeAll(keepingCapacity: true)   // still pasting: the rest follows
            }

        case .ss3:
            if (0x40...0x7e).contains(byte) {
                pending.append(byte)
                keys.append(Self.ss3Key(pending))
                reset()
            } else {
                keys.append(.unknown(pending))
                reset()
                ground(byte, into: &keys)
            }

        case .utf8(let remaining, let next):
            guard next.contains(byte) else {
                // Not a valid continuation: the maximal subpart so far is one replacement
                // character; the byte starts afresh.
                keys.append(.character(Self.replacement))
                reset()
                ground(byte, into: &keys)
                return
            }
            pending.append(byte)
            if remaining > 1 {
                state = .utf8(remaining: remaining - 1, next: 0x80...0xbf)
            } else {
                keys.append(Self.utf8Key(pending))
                reset()
            }
        }
    }

    private mutating func ground(_ byte: UInt8, into keys: inout [Key]) {
        switch byte {
        case 0x1b:
            pending.append(byte)
            state = .escape
        case 0x0d, 0x0a: keys.append(.enter)
        case 0x09: keys.append(.tab)
        case 0x7f, 0x08: keys.append(.backspace)
        case 0x00: keys.append(.control("@"))
        case 0x01...0x1a: keys.append(.control(Character(Unicode.Scalar(byte + 0x60))))
        case 0x1c...0x1f: keys.append(.control(Character(Unicode.Scalar(byte + 0x40))))
        case 0x20...0x7e: keys.append(.character(Character(Unicode.Scalar(byte))))
        // UTF-8 lead bytes, with the valid range of the first continuation byte (RFC 3629:
        // no overlong forms, no surrogates, nothing above U+10FFFF).
        case 0xc2...0xdf: startUTF8(byte, remaining: 1, next: 0x80...0xbf)
        case 0xe0: startUTF8(byte, remaining: 2, next: 0xa0...0xbf)
        case 0xe1...0xec, 0xee, 0xef: startUTF8(byte, remaining: 2, next: 0x80...0xbf)
        case 0xed: startUTF8(byte, remaining: 2, next: 0x80...0x9f)
        case 0xf0: startUTF8(byte, remaining: 3, next: 0x90...0xbf)
        case 0xf1...0xf3: startUTF8(byte, remaining: 3, next: 0x80...0xbf)
        case 0xf4: startUTF8(byte, remaining: 3, next: 0x80...0x8f)
        default:
            // A stray continuation byte, or a byte that never appears in UTF-8.
            keys.append(.character(Self.replacement))
        }
    }

    private mutating func startUTF8(_ byte: UInt8, remaining: Int, next: ClosedRange<UInt8>) {
        pending.append(byte)
        state = .utf8(remaining: remaining, next: next)
    }

    private static func utf8Key(_ bytes: [UInt8]) -> Key {
        var value: UInt32
        switch bytes.count {
        case 2: value = UInt32(bytes[0] & 0x1f)
        case 3: value = UInt32(bytes[0] & 0x0f)
        default: value = UInt32(bytes[0] & 0x07)
        }
        for byte in bytes.dropFirst() { value = value << 6 | UInt32(byte & 0x3f) }
        guard let scalar = Unicode.Scalar(value) else { return .character(replacement) }
        // C1 control characters (U+0080...U+009F) are not printable.
        if value < 0xa0 { return .unknown(bytes) }
        return .character(Character(scalar))
    }

    /// Interprets a complete `ESC [ params final` sequence.
    private static func csiKey(_ bytes: [UInt8]) -> Key {
        let final = bytes[bytes.count - 1]
        let parameters = bytes[2..<(bytes.count - 1)]
        // Only plain numeric parameters separated by ';' (private prefixes such as '?' and '<'
        // mark reports we never asked for).
        guard parameters.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x3b }) else { return .unknown(bytes) }
        let numbers = parameters.split(separator: 0x3b, omittingEmptySubsequences: false).map { digits -> Int? in
            digits.isEmpty ? nil : digits.reduce(0) { $0 &* 10 &+ Int($1 - 0x30) }
        }
        let first = numbers.first ?? nil
        // Letter finals take no parameter, or `1;modifiers` (xterm's modified keys).
        let plain = parameters.isEmpty || (first == 1 && numbers.count == 2)
        switch final {
        case 0x41 where plain: return .up      // A
        case 0x42 where plain: return .down    // B
        case 0x43 where first == 1 && numbers.count == 2 && [3, 5].contains(numbers[1] ?? 0): return .controlRight  // Ctrl/Alt-Right
        case 0x44 where first == 1 && numbers.count == 2 && [3, 5].contains(numbers[1] ?? 0): return .controlLeft   // Ctrl/Alt-Left
        case 0x43 where plain: return .right   // C
        case 0x44 where plain: return .left    // D
        case 0x48 where plain: return .home    // H
        case 0x46 where plain: return .end     // F
        case 0x5a where parameters.isEmpty: return .backTab  // Z
        case 0x50...0x53 where plain: return .function(Int(final - 0x50) + 1)  // P Q R S: F1-F4
        case 0x7e:  // ~
            guard numbers.count <= 2, let code = first else { return .unknown(bytes) }
            switch code {
            case 1, 7: return .home
            case 2: return .insert
            case 3: return .delete
            case 4, 8: return .end
            case 5: return .pageUp
            case 6: return .pageDown
            case 11...15: return .function(code - 10)
            case 17...21: return .function(code - 11)
            case 23, 24: return .function(code - 12)
            default: return .unknown(bytes)
            }
        default:
            return .unknown(bytes)
        }
    }

    /// Interprets a complete `ESC O final` sequence (application cursor keys, F1-F4).
    private static func ss3Key(_ bytes: [UInt8]) -> Key {
        switch bytes[2] {
        case 0x41: return .up
        case 0x42: return .down
        case 0x43: return .right
        case 0x44: return .left
        case 0x48: return .home
        case 0x46: return .end
        case 0x4d: return .enter  // keypad Enter
        case 0x50...0x53: return .function(Int(bytes[2] - 0x50) + 1)
        default: return .unknown(bytes)
        }
    }
}
