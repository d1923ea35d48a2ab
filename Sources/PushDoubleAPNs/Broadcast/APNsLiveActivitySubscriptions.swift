import Foundation
import PushDoubleCore
import PushDoubleTransport

/// Whether a simulated device can hold a Live Activity that receives a channel's broadcasts
/// (docs/apns.md "Devices subscribed to channels").
enum APNsLiveActivityReach {
    /// Why `device` cannot receive broadcasts of `bundleID`'s channels in `environment`, nil
    /// when it can: it must be a registered APNs device whose topic and environment, when
    /// set, are the channel's; with `requireActive`, also in state `active` (an app that is
    /// gone runs no Live Activity).
    static func refusal(_ device: Device?, bundleID: String, environment: APNsEnvironment, requireActive: Bool) -> String? {
        guard let device else { return "no such device" }
        guard device.provider == .apns else { return "device \(device.id) is a \(device.provider) device, not an APNs one" }
        if let topic = device.topic, topic != bundleID { return "device \(device.id) belongs to \(topic), the channel to \(bundleID)" }
        if let env = device.environment, env != environment.rawValue {
            return "device \(device.id) is in \(env), the channel in \(environment.rawValue)"
        }
        if requireActive, device.state != .active { return "device \(device.id) is \(DeviceStateKind(device.state).rawValue)" }
        return nil
    }
}

/// The admin API's Live Activity subscriptions of simulated devices
/// (docs/admin-openapi.yaml `/apns/devices/{id}/channels`):
/// - `GET` → `{"deviceId","subscriptions":[channel…],"updates":[update…]}`: the channels the
///   device's Live Activity subscribed to and every update it received, oldest first;
/// - `POST` `{"channelId":"…","bundleId":"…","environment":"…"}` (the last two only to choose
///   between channels that share an id) → 201 with the subscription and `delivered`, the
///   channel's stored message when the device got it now (else null);
/// - `DELETE [?channelId=…]` → `{"unsubscribed":n}`: ends one subscription, or all of them.
struct APNsLiveActivityAdmin {
    let fake: APNsFake
    /// The double's devices; nil when the instance was built without a double (then any
    /// device id is taken as given).
    let devices: DeviceRegistry?

    var routes: [AdminRoute] {
        let me = self
        return [AdminRoute("GET", "/apns/devices/:id/channels") { _, p in me.show(Self.decoded(p["id"])) },
                AdminRoute("POST", "/apns/devices/:id/channels") { r, p in me.subscribe(Self.decoded(p["id"]), r) },
                AdminRoute("DELETE", "/apns/devices/:id/channels") { r, p in
                    let channel = APNsChannelAdmin.queryItems(r.path)["channelId"]
                    return AdminRoute.json(200, .object([("unsubscribed", .int(Int64(me.fake.channels.unsubscribe(device: Self.decoded(p["id"]),
                                                                                                                      channel: channel))))]))
                }]
    }

    static func decoded(_ raw: String?) -> String { raw.map { $0.removingPercentEncoding ?? $0 } ?? "" }

    func show(_ id: String) -> HTTPResponse {
        AdminRoute.json(200, .object([("deviceId", .string(id)),
                                      ("subscriptions", .array(fake.channels.subscriptions(of: id).map(Self.subscription))),
                                      ("updates", .array(fake.channels.updates(of: id).map(\.json)))]))
    }

    /// A subscription as listed: the channel without its broadcast log.
    static func subscription(_ c: APNsChannel) -> JSONValue { .object(subscriptionMembers(c)) }

    static func subscriptionMembers(_ c: APNsChannel) -> [(String, JSONValue)] {
        [("channelId", .string(c.id)), ("bundleId", .string(c.bundleID)), ("environment", .string(c.environment.rawValue)),
         ("messageStoragePolicy", .int(Int64(c.storagePolicy.rawValue)))]
    }

    func subscribe(_ id: String, _ request: HTTPRequest) -> HTTPResponse {
        guard let body = try? JSONValue.parse(request.body), body.objectValue != nil,
              let channelID = body["channelId"]?.stringValue else {
            return AdminRoute.error(400, "expected {\"channelId\":\"…\"} (bundleId and environment optional)")
        }
        var environment: APNsEnvironment?
        if let e = body["environment"]?.stringValue {
            guard let env = APNsEnvironment(rawValue: e) else { return AdminRoute.error(400, "environment must be production or sandbox") }
            environment = env
        }
        let matches = fake.channels.all(bundleID: body["bundleId"]?.stringValue, environment: environment).filter { $0.id == channelID }
        guard let channel = matches.first else { return AdminRoute.error(404, "no channel \(channelID)") }
        guard matches.count == 1 else { return AdminRoute.error(400, "channel \(channelID) exists in several apps or environments: give bundleId and environment") }
        var reachable = true
        if let devices {
            let device = devices.device(id: id)
            if device == nil { return AdminRoute.error(404, "no device \(id)") }
            if let why = APNsLiveActivityReach.refusal(device, bundleID: channel.bundleID, environment: channel.environment, requireActive: false) {
                return AdminRoute.error(409, why)
            }
            reachable = APNsLiveActivityReach.refusal(device, bundleID: channel.bundleID, environment: channel.environment, requireActive: true) == nil
        }
        let result = fake.channels.subscribe(device: id, channel: channel.id, bundleID: channel.bundleID, environment: channel.environment,
                                             now: fake.faultClock.now(), reachable: reachable)
        guard case .subscribed(let delivered) = result else { return AdminRoute.error(404, "no channel \(channelID)") }
        return AdminRoute.json(201, .object([("deviceId", .string(id))] + Self.subscriptionMembers(channel)
                                            + [("delivered", delivered?.json ?? .null)]))
    }
}
