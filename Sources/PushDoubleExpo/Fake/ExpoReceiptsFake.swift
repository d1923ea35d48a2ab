import Foundation
import PushDoubleCore
import PushDoubleTransport

/// `POST /--/api/v2/push/getReceipts` (docs/expo.md §4): `{"ids":[…]}` (plain or gzip, ≤ 1000 ids)
/// → `{"data":{id: receipt}}` with the visible receipts, unknown / held / expired ids left out.
/// Each receipt served is added to the history entry of the send that issued its ticket
/// (``ExpoSendRecord``).
///
/// The access token is not required here: docs/expo.md §1 ties enhanced push security to sending,
/// and the Python SDK sends no `Authorization` header at all (§6.2); accepting is the lenient
/// reading (docs/expo.md).
public struct ExpoReceiptsFake: ProviderFake {
    public let service: ExpoService
    public var provider: ProviderID { .expo }
    /// Endpoint id recorded in the history.
    public static let endpoint = "expo.getReceipts"

    public init(service: ExpoService) { self.service = service }

    public var rateLimitReason: String? { ExpoErrorCode.tooManyRequests.rawValue }

    public func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        var admission = Admission(endpoint: Self.endpoint)
        admission.auth = service.identity(request.headers["authorization"])
        do {
            let ids = try service.receiptsHandler.ids(body: request.body, contentEncoding: request.headers["content-encoding"])
            admission.notification = .object([("ids", .array(ids.map { .string($0) }))])
            let state = ExpoConnectionState.of(context.connection)
            state.stream = request.info.streamID
            state.ids = ids
        } catch {
            admission.refusal = ExpoService.refusal(error, stage: .validation)
        }
        return admission
    }

    public func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        let state = ExpoConnectionState.of(context.connection)
        let ids: [String]
        if state.stream == request.info.streamID, let stashed = state.ids {
            ids = stashed
            state.ids = nil
        } else {
            ids = (try? service.receiptsHandler.ids(body: request.body, contentEncoding: request.headers["content-encoding"])) ?? []
        }
        let now = services.now
        let found = service.receipts.serve(ids, now: now.timeIntervalSince1970)
        return ProviderResponse(ExpoService.json(200, ExpoGetReceiptsHandler.body(found)), decidedBy: Decision(.accepted, "\(found.count) of \(ids.count) receipts"))
    }

    public func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest, admission: Admission) -> HTTPResponse? {
        let count = admission.notification?["ids"]?.arrayValue?.count ?? 0
        guard let error = service.requestError(code: reason, recipients: count) else { return nil }
        return ExpoService.json(status ?? error.httpStatus, error.body, headers: headers)
    }

    public func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        ExpoService.unknownReason(reason, status: status, headers: headers)
    }

    public func magicDevice(token: String) -> MagicDevice? { service.magicDevice(token: token) }
    public func isWellFormedToken(_ token: String) -> Bool { service.isWellFormedToken(token) }
}
