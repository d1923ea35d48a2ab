/// A small, fast, seedable pseudo-random generator (SplitMix64): the only source of
/// randomness in the fault engine, so the same seed and the same request sequence give
/// the same answers on every machine and every run.
///
/// Reference: Steele, Lea, Flood, "Fast splittable pseudorandom number generators"
/// (OOPSLA 2014); constants as in Vigna's public-domain `splitmix64.c`.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double uniformly distributed in [0, 1) from the top 53 bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}
