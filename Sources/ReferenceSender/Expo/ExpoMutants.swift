/// The Expo sender's planted bugs (``Mutant``), listed by ``ExpoSenderProvider/mutants``.
extension Mutant {
    static let expoNoChunking = Mutant("expo-no-chunking",
        "Expo: sends every device of a send in one request, over 100 recipients too (PUSH_TOO_MANY_NOTIFICATIONS)",
        fails: ["expo.chunk-size"])
    static let expoIgnoreTicketErrors = Mutant("expo-ignore-ticket-errors",
        "Expo: takes every ticket as pending, DeviceNotRegistered ones too, and keeps sending to those tokens",
        fails: ["dead-token-not-reused", "expo.settled-outcome"])
    static let expoNoReceipts = Mutant("expo-no-receipts",
        "Expo: never fetches receipts, so receipt-only deaths and errors go unnoticed",
        fails: ["expo.receipts-fetched", "expo.settled-outcome"])
    static let expoAbsentReceiptIsOK = Mutant("expo-absent-receipt-is-ok",
        "Expo: reports sent when getReceipts leaves a ticket's receipt out (not yet available)",
        fails: ["expo.receipt-truthful"])
    static let expoTicketsReversed = Mutant("expo-tickets-reversed",
        "Expo: maps tickets to devices in reverse order (prunes the wrong devices)",
        fails: ["outcome-truthful", "expo.settled-outcome"])
    static let expoResendTooBig = Mutant("expo-resend-too-big",
        "Expo: skips the local 4096-byte check and resends a message whose receipt is MessageTooBig",
        fails: ["expo.too-big-not-resent", "expo.message-size"])
    static let expoNoBackoff = Mutant("expo-no-backoff",
        "Expo: retries 429 TOO_MANY_REQUESTS and MessageRateExceeded at once, ignoring Retry-After",
        fails: ["retry-after"])
    static let expoNoAccessToken = Mutant("expo-no-access-token",
        "Expo: never sends the configured access token (enhanced push security)",
        fails: ["expo.access-token"])
    static let expoReceiptsOneRequest = Mutant("expo-receipts-one-request",
        "Expo: asks for every receipt in one getReceipts request, over 1000 ids too (PUSH_TOO_MANY_RECEIPTS)",
        fails: ["expo.receipts-chunk-size"])
    static let expoReceiptsForeignIDs = Mutant("expo-receipts-foreign-ids",
        "Expo: asks getReceipts for ids it never got a ticket for",
        fails: ["expo.receipts-own-ids"])
    static let expoResendMixedProjects = Mutant("expo-resend-mixed-projects",
        "Expo: resends a request refused with PUSH_TOO_MANY_EXPERIENCE_IDS unchanged instead of splitting it by project",
        fails: ["expo.split-by-project", "no-retry-permanent"])
    static let expoIgnoreReceiptDead = Mutant("expo-ignore-receipt-dead",
        "Expo: takes a DeviceNotRegistered receipt as sent and keeps sending to the token",
        fails: ["expo.receipt-dead-not-reused", "expo.receipt-truthful"])
}

extension ExpoSenderProvider {
    static var mutants: [Mutant] { [.expoNoChunking, .expoIgnoreTicketErrors, .expoNoReceipts, .expoAbsentReceiptIsOK, .expoTicketsReversed, .expoResendTooBig, .expoNoBackoff, .expoNoAccessToken, .expoReceiptsOneRequest, .expoReceiptsForeignIDs, .expoIgnoreReceiptDead, .expoResendMixedProjects] }
}
