/// Whether the Swift runtime moved `object`'s reference counts to a side table, as it does for an
/// object that a `weak` reference points at: bit 63 of the object's second word (its inline
/// reference counts), which makes every retain and release of the object take the runtime's
/// slow path. Native Swift objects only (every object on Linux).
public func hasSideTable(_ object: AnyObject) -> Bool {
    UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).load(fromByteOffset: 8, as: UInt64.self) >> 63 == 1
}
