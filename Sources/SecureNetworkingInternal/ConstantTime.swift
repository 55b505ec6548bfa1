/// Whether `lhs` and `rhs` hold the same bytes, looking at every byte whatever the contents, so
/// the time taken says nothing about how many leading bytes matched. Unequal lengths return at
/// once: the lengths compared here (hashes, MACs, `state` values) are not secret.
package func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
    return difference == 0
}
