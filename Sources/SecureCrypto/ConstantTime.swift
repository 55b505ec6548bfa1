import SecureNetworkingInternal

/// Byte comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// `true` when `lhs` and `rhs` hold the same bytes.
    ///
    /// Runs over every byte whatever the contents, so the time taken says nothing about how many
    /// leading bytes of a derived hash an attacker guessed right. The lengths themselves are not
    /// secret here (they come from the stored encoding), so unequal lengths return at once.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        constantTimeEquals(lhs, rhs)
    }

    /// `true` when every byte is zero, looking at every byte.
    static func isAllZero(_ bytes: [UInt8]) -> Bool {
        var accumulated: UInt8 = 0
        for byte in bytes {
            accumulated |= byte
        }
        return accumulated == 0
    }
}
