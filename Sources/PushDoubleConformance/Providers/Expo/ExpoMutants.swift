/// The reference sender's planted Expo bugs and the checks each must fail (its part of
/// ``MutantTable``; the end-to-end tests and the README use it).
extension ExpoConformance {
    public var mutants: [MutantTable.Entry] { Self.mutantEntries }

    static let mutantEntries: [MutantTable.Entry] = [
        MutantTable.Entry(mutant: "expo-no-chunking", bug: "sends more than 100 recipients in one Expo request", failingChecks: ["expo.chunk-size"]),
        MutantTable.Entry(mutant: "expo-ignore-ticket-errors", bug: "takes DeviceNotRegistered tickets as pending and keeps using those tokens", failingChecks: ["dead-token-not-reused", "expo.settled-outcome"]),
        MutantTable.Entry(mutant: "expo-no-receipts", bug: "never fetches Expo receipts", failingChecks: ["expo.receipts-fetched", "expo.settled-outcome"]),
        MutantTable.Entry(mutant: "expo-absent-receipt-is-ok", bug: "reports sent when the receipt is not available yet", failingChecks: ["expo.receipt-truthful"]),
        MutantTable.Entry(mutant: "expo-tickets-reversed", bug: "maps Expo tickets to the wrong devices", failingChecks: ["outcome-truthful", "expo.settled-outcome"]),
        MutantTable.Entry(mutant: "expo-resend-too-big", bug: "sends messages over 4096 bytes and resends them after a MessageTooBig receipt", failingChecks: ["expo.too-big-not-resent", "expo.message-size"]),
        MutantTable.Entry(mutant: "expo-no-backoff", bug: "retries 429 TOO_MANY_REQUESTS at once, ignoring Retry-After", failingChecks: ["retry-after"]),
        MutantTable.Entry(mutant: "expo-no-access-token", bug: "never sends the configured Expo access token", failingChecks: ["expo.access-token"]),
        MutantTable.Entry(mutant: "expo-receipts-one-request", bug: "asks for more than 1000 receipts in one request", failingChecks: ["expo.receipts-chunk-size"]),
        MutantTable.Entry(mutant: "expo-receipts-foreign-ids", bug: "asks for receipts of ids it never got", failingChecks: ["expo.receipts-own-ids"]),
        MutantTable.Entry(mutant: "expo-resend-mixed-projects", bug: "resends a request mixing two Expo projects unchanged instead of splitting it",
                          failingChecks: ["expo.split-by-project", "no-retry-permanent"]),
        MutantTable.Entry(mutant: "expo-ignore-receipt-dead", bug: "takes a DeviceNotRegistered receipt as sent and keeps using the token", failingChecks: ["expo.receipt-dead-not-reused", "expo.receipt-truthful"]),
    ]
}
