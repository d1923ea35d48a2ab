/// The answer to a delivery request sent to a subscription's token under the other path shape
/// of its service (docs/webpush.md §6.1b): FCM answers a `/fcm/send/<token>` request for a
/// `/wp/` subscription with `404`, `text/plain; charset=utf-8`, and the text that names the
/// valid URL (recorded: `A valid push subscription endpoint should be specified in the URL as
/// such: https://fcm.googleapis.com/wp/…`, the token following); the other services' answer
/// to a wrong shape is not recorded and stays their invalid-endpoint answer.
extension WebPushServiceStyle {
    public func response(forWrongShape requested: WebPushEndpointPath, of subscription: WebPushEndpointPath) -> WebPushResponse {
        guard service == .fcm, subscription.service == .fcm, subscription.restricted, !requested.restricted else {
            return response(for: .gone(.invalidEndpoint))
        }
        return WebPushResponse(status: 404, headers: [.init("Content-Type", FCMStyle.goneContentType)],
                               body: Array((FCMStyle.staleBody + subscription.token).utf8))
    }
}
