/// Published test vectors the fuzz targets use as fixed keys and `fuzz-seeds` writes as
/// seeds. Copied from the unit tests that check them (cited per group), not re-derived.
public enum FuzzVectors {
    /// RFC 8291 Appendix A (Tests/PushDoubleCryptoTests/WebPushCipherTests.swift, from
    /// docs/webpush.md §3), base64url.
    public enum RFC8291 {
        public static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        public static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        public static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        public static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        public static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
    }

    /// RFC 8188 §3.1 and §3.2 (Tests/PushDoubleCryptoTests/AES128GCMContentCodingTests.swift), base64url.
    public enum RFC8188 {
        public static let ikm1 = "yqdlZ-tYemfogSmv7Ws5PQ"
        public static let body1 = "I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg"
        public static let ikm2 = "BO3ZVPxUlnLORbVGMpbT1Q"
        public static let body2 = "uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA"
    }

    /// Legacy `aesgcm`, mozilla-services/ecec rs=24 and rs=8 cases
    /// (Tests/PushDoubleCryptoTests/WebPushCipherTests.swift): hex keys and bodies.
    public enum ECEC {
        public static let uaPrivateHex = "e21db71bf2a45c2f53bc148adafd10ec89a94b6600b9177c850c8dd2b140c018"
        public static let authSecretHex = "6930dce8979bcd1e9e49ccb6a0ba3845"
        public static let bodyHex = "3a8df8c3617d5559d33057cab5dc78f0065643d2e2f4ce836ae5895605d4"
        public static let encryption = "salt=zCU18Rw3A5aB_Xi-vfixmA; rs=24"
        public static let cryptoKey = "dh=BCHFVrflyxibGLlgztLwKelsRZp4gqX3tNfAKFaxAcBhpvYeN1yIUMrxaDKiLh4LNKPtj0BOXGdr-IQ-QP82Wjo"
        public static let manyRecordsBodyHex = "b840b907fb51f9fb90ddd7a541caf3ac30a9e345ba8a93198c667bf14483279b0c8fee9b00e546dc02ba26a165f44e80a16881618bcc65fc13855c660e7c3a447b5578b2853390d6825d44c243a88701f61218830f480cde2a3e77bf562b338f644f6b0d6512bfae09b2d22649f5ff00341f001aef6d991e696c61e77106e7d40c38494526a1ee7b874c511a6c3178"
        public static let manyRecordsEncryption = "salt=ZFhzj0S-n29g9P2p4-I7tA; rs=8"
        public static let manyRecordsCryptoKey = "dh=BEaA4gzA3i0JDuirGhiLgymS4hfFX7TNTdEhSk_HBlLpkjgCpjPL5c-GL9uBGIfa_fhGNKKFhXz1k9Kyens2ZpQ"
        public static let manyRecordsAuthSecretHex = "ea99706674a95546c5ec03c35eeb3751"
    }

    /// Bytes of a hex string (whitespace ignored); traps on anything else (vectors only).
    public static func hex(_ s: String) -> [UInt8] {
        let digits = s.unicodeScalars.filter { !$0.properties.isWhitespace }.map { UInt8(String($0), radix: 16)! }
        precondition(digits.count % 2 == 0, "odd hex length")
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
