import Foundation
import os

struct AuthLogging {
    let logger = Logger(subsystem: "com.example.SampleApp", category: "auth")

    func didSignIn(token: String, user: String, request: URLRequest) {
        print("Signed in with token \(token)")
        print("Signed in as \(user); token has \(token.count) characters")
        logger.info("Session token: \(token, privacy: .public)")
        logger.info("Session token: \(token, privacy: .private)")
        logger.debug("Token refreshed for \(user, privacy: .public)")
        NSLog("Headers: %@", request.allHTTPHeaderFields ?? [:])
        debugPrint("Tokenizer ready")
    }
}
