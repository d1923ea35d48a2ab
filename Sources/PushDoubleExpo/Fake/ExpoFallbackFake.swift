import PushDoubleCore
import PushDoubleTransport

/// What the `expo` listener answers outside its two routes, in Expo's error shape (texts and
/// codes ours: docs/expo.md records no such answer): unknown paths 404 `NOT_FOUND`, a known path
/// with another method 405 `METHOD_NOT_ALLOWED`, and bodies over the transport's limits
/// `API_ERROR` with the transport's status (413 / 431).
public struct ExpoFallbackFake: ProviderFake {
    public let service: ExpoService
    public var provider: ProviderID { .expo }
    /// Endpoint id recorded in the history.
    public static let endpoint = "expo.other"

    public init(service: ExpoService) { self.service = service }

    public func admit(_ request: HTTPRequest, context: RequestContext, services: ProviderServices) -> Admission {
        var admission = Admission(endpoint: Self.endpoint)
        let path = request.pathWithoutQuery
        let known = path == ExpoService.sendPath || path == ExpoService.receiptsPath
        let response: HTTPResponse
        if known {
            var h = HTTPHeaders()
            h.add(name: "allow", value: "POST")
            response = ExpoService.json(405, ExpoService.errorsBody(code: "METHOD_NOT_ALLOWED", message: "\(request.method) is not allowed on \(path); use POST."), headers: h)
        } else {
            response = ExpoService.json(404, ExpoService.errorsBody(code: "NOT_FOUND", message: "There is no push service endpoint at \(path)."))
        }
        admission.refusal = ProviderResponse(response, reason: known ? "METHOD_NOT_ALLOWED" : "NOT_FOUND",
                                             decidedBy: Decision(.validation, known ? "method" : "path"))
        return admission
    }

    public func deliver(_ request: HTTPRequest, admission: Admission, device: DeviceLookup, context: RequestContext,
                        services: ProviderServices) -> ProviderResponse {
        ProviderResponse(ExpoService.json(404, ExpoService.errorsBody(code: "NOT_FOUND", message: "Not found.")), decidedBy: Decision(.validation))
    }

    public func limitRefusal(_ violation: LimitViolation, request: HTTPRequest, context: RequestContext) -> Admission? {
        var admission = Admission(endpoint: request.pathWithoutQuery == ExpoService.receiptsPath ? ExpoReceiptsFake.endpoint : ExpoSendFake.endpoint)
        let body = ExpoService.errorsBody(code: ExpoErrorCode.apiError.rawValue, message: violation.message)
        admission.refusal = ProviderResponse(ExpoService.json(violation.suggestedStatus, body), reason: ExpoErrorCode.apiError.rawValue,
                                             decidedBy: Decision(.validation, "transport limit: \(violation.message)"))
        return admission
    }

    public func errorResponse(reason: String, status: Int?, headers: HTTPHeaders, request: HTTPRequest, admission: Admission) -> HTTPResponse? {
        service.requestError(code: reason, recipients: 0).map { ExpoService.json(status ?? $0.httpStatus, $0.body, headers: headers) }
    }

    public func unknownReasonResponse(reason: String?, status: Int, headers: HTTPHeaders) -> HTTPResponse {
        ExpoService.unknownReason(reason, status: status, headers: headers)
    }

    public func magicDevice(token: String) -> MagicDevice? { service.magicDevice(token: token) }
    public func isWellFormedToken(_ token: String) -> Bool { service.isWellFormedToken(token) }
}
