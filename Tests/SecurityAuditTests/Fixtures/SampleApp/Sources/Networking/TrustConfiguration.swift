import Alamofire
import Foundation
import TrustKit

enum TrustConfiguration {
    static func alamofireManager() -> ServerTrustManager {
        ServerTrustManager(evaluators: [
            "dev.backend.com": DisabledTrustEvaluator(),
            "api.backend.com": DefaultTrustEvaluator(),
            "auth.backend.com": PublicKeysTrustEvaluator(validateHost: true),
            "files.backend.com": PinnedCertificatesTrustEvaluator(validateHost: false),
            "old.backend.com": RevocationTrustEvaluator(allowsExpiredCertificates: true),
        ])
    }

    static func trustKitConfiguration() -> [String: Any] {
        [
            kTSKPinnedDomains: [
                "api.backend.com": [
                    kTSKPublicKeyHashes: ["r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="],
                ],
                "auth.backend.com": [
                    kTSKPublicKeyHashes: [
                        "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg=",
                        "Vjs8r4z+80wjNcr1YKepWQboSIRi63WsWXhIMN+eWys=",
                    ],
                ],
            ],
        ]
    }

    static func configure(_ evaluator: inout CustomEvaluator) {
        evaluator.allowsExpiredCertificates = true
        evaluator.allowsExpiredCertificates = false
    }
}
