import Foundation
import ServerTrust
import Testing

/// Reading the v3 log list format that Chrome and Apple publish.
@Suite("CT log list")
struct CertificateTransparencyLogListTests {
    /// An excerpt of Google's v3 `log_list.json` (version 8.1, 2022-04-30): the Let's Encrypt
    /// operator with two logs, verbatim. Source: mcpherrinm/pki-data at commit 7b78916
    /// (a vendored copy of https://www.gstatic.com/ct/log_list/v3/log_list.json).
    static let googleExcerpt = """
        {
          "version": "8.1",
          "log_list_timestamp": "2022-04-30T12:55:55Z",
          "operators": [
            {
              "name": "Let's Encrypt",
              "email": ["sre@letsencrypt.org"],
              "logs": [
                {
                  "description": "Let's Encrypt 'Oak2022' log",
                  "log_id": "36Veq2iCTx9sre64X04+WurNohKkal6OOxLAIERcKnM=",
                  "key": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEhjyxDVIjWt5u9sB/o2S8rcGJ2pdZTGA8+IpXhI/tvKBjElGE5r3de4yAfeOPhqTqqc+o7vPgXnDgu/a9/B+RLg==",
                  "url": "https://oak.ct.letsencrypt.org/2022/",
                  "mmd": 86400,
                  "state": { "usable": { "timestamp": "2020-01-27T18:18:26Z" } },
                  "temporal_interval": { "start_inclusive": "2022-01-01T00:00:00Z", "end_exclusive": "2023-01-07T00:00:00Z" }
                },
                {
                  "description": "Let's Encrypt 'Oak2023' log",
                  "log_id": "tz77JN+cTbp18jnFulj0bF38Qs96nzXEnh0JgSXttJk=",
                  "key": "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEsz0OeL7jrVxEXJu+o4QWQYLKyokXHiPOOKVUL3/TNFFquVzDSer7kZ3gijxzBp98ZTgRgMSaWgCmZ8OD74mFUQ==",
                  "url": "https://oak.ct.letsencrypt.org/2023/",
                  "mmd": 86400,
                  "state": { "usable": { "timestamp": "2021-03-01T19:24:00Z" } },
                  "temporal_interval": { "start_inclusive": "2023-01-01T00:00:00Z", "end_exclusive": "2024-01-07T00:00:00Z" }
                }
              ]
            }
          ]
        }
        """

    func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func googlesFormatIsRead() throws {
        let list = try CertificateTransparencyLogList(json: Data(Self.googleExcerpt.utf8))
        #expect(list.timestamp == date("2022-04-30T12:55:55Z"))
        #expect(list.version == "8.1")
        #expect(list.logs.count == 2)
        let oak = try #require(
            list.log(id: Array(Data(base64Encoded: "36Veq2iCTx9sre64X04+WurNohKkal6OOxLAIERcKnM=")!))
        )
        #expect(oak.description == "Let's Encrypt 'Oak2022' log")
        #expect(oak.operatorName == "Let's Encrypt")
        #expect(oak.state == .init(.usable, since: date("2020-01-27T18:18:26Z")))
        #expect(oak.temporalInterval == date("2022-01-01T00:00:00Z")..<date("2023-01-07T00:00:00Z"))
        #expect(oak.isRFC6962)
        #expect(oak.url == "https://oak.ct.letsencrypt.org/2022/")
    }

    func refused(_ json: String, timestamp: Date? = nil) -> ServerTrustError? {
        do {
            _ = try CertificateTransparencyLogList(json: Data(json.utf8), timestamp: timestamp)
            return nil
        } catch {
            return error
        }
    }

    func mutated(_ change: (inout String) -> Void) -> String {
        var text = Self.googleExcerpt
        change(&text)
        return text
    }

    @Test func aLogIDThatIsNotTheKeysHashIsRefusedWithItsPath() {
        let json = mutated {
            $0 = $0.replacingOccurrences(
                of: "36Veq2iCTx9sre64X04+WurNohKkal6OOxLAIERcKnM=",
                with: "tz77JN+cTbp18jnFulj0bF38Qs96nzXEnh0JgSXttJk="
            )
        }
        let error = refused(json)
        #expect(error?.code == .invalidLogList)
        #expect(error?.keyPath == "$.operators[0].logs[0].log_id")
    }

    @Test(arguments: [
        ("not JSON", "{", "$"),
        ("no operators", #"{"log_list_timestamp": "2022-04-30T12:55:55Z"}"#, "$.operators"),
        ("bad time", #"{"log_list_timestamp": "yesterday", "operators": []}"#, "$.log_list_timestamp"),
        ("operators not an array", #"{"log_list_timestamp": "2022-04-30T12:55:55Z", "operators": {}}"#, "$.operators"),
        (
            "no key",
            #"{"log_list_timestamp": "2022-04-30T12:55:55Z", "operators": [{"name": "X", "logs": [{"log_id": "AA=="}]}]}"#,
            "$.operators[0].logs[0].key"
        ),
        (
            "key not base64",
            #"{"log_list_timestamp": "2022-04-30T12:55:55Z", "operators": [{"name": "X", "logs": [{"key": "%%%", "log_id": "AA=="}]}]}"#,
            "$.operators[0].logs[0].key"
        ),
    ])
    func malformedListsAreRefusedWithTheirPath(name: String, json: String, path: String) {
        let error = refused(json)
        #expect(error?.code == .invalidLogList, "\(name)")
        #expect(error?.keyPath == path, "\(name)")
    }

    @Test func anUnknownStateOrTwoStatesAreRefused() {
        let unknown = mutated {
            $0 = $0.replacingOccurrences(
                of: #""usable": { "timestamp": "2020-01-27T18:18:26Z" }"#,
                with: #""trusted": { "timestamp": "2020-01-27T18:18:26Z" }"#
            )
        }
        #expect(refused(unknown)?.keyPath == "$.operators[0].logs[0].state.trusted")
        let two = mutated {
            $0 = $0.replacingOccurrences(
                of: #""usable": { "timestamp": "2020-01-27T18:18:26Z" }"#,
                with:
                    #""usable": { "timestamp": "2020-01-27T18:18:26Z" }, "retired": { "timestamp": "2021-01-27T18:18:26Z" }"#
            )
        }
        #expect(refused(two)?.keyPath == "$.operators[0].logs[0].state")
        let emptyInterval = mutated {
            $0 = $0.replacingOccurrences(
                of: #""end_exclusive": "2023-01-07T00:00:00Z""#,
                with: #""end_exclusive": "2022-01-01T00:00:00Z""#
            )
        }
        #expect(refused(emptyInterval)?.keyPath == "$.operators[0].logs[0].temporal_interval")
    }

    @Test func aListWithoutATimestampNeedsTheFetchTime() throws {
        // Apple's current_log_list.json has no log_list_timestamp.
        let json = mutated {
            $0 = $0.replacingOccurrences(of: #""log_list_timestamp": "2022-04-30T12:55:55Z","#, with: "")
        }
        #expect(refused(json)?.keyPath == "$.log_list_timestamp")
        let fetched = date("2026-11-01T00:00:00Z")
        let list = try CertificateTransparencyLogList(json: Data(json.utf8), timestamp: fetched)
        #expect(list.timestamp == fetched)
        #expect(list.logs.count == 2)
    }

    @Test func aFetchTimeNeverMakesAnOldListLookFresh() throws {
        let published = date("2022-04-30T12:55:55Z")
        // Fetched (or claimed to be) years later: the list is still as old as it says.
        let later = try CertificateTransparencyLogList(
            json: Data(Self.googleExcerpt.utf8),
            timestamp: date("2026-11-01T00:00:00Z")
        )
        #expect(later.timestamp == published)
        var settings = CertificateTransparencySettings()
        settings.logList = later
        #expect(settings.logListExpiry == published.addingTimeInterval(settings.maximumLogListAge))
        // A time before the list's own: the earlier of the two.
        let earlier = date("2022-04-01T00:00:00Z")
        let backdated = try CertificateTransparencyLogList(json: Data(Self.googleExcerpt.utf8), timestamp: earlier)
        #expect(backdated.timestamp == earlier)
    }

    @Test func tiledLogsPreviousOperatorsAndFractionalTimesAreRead() throws {
        let key =
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEhjyxDVIjWt5u9sB/o2S8rcGJ2pdZTGA8+IpXhI/tvKBjElGE5r3de4yAfeOPhqTqqc+o7vPgXnDgu/a9/B+RLg=="
        let json = """
            {"log_list_timestamp": "2026-11-20T10:00:00.250Z", "operators": [{"name": "Now", "email": [], "logs": [],
              "tiled_logs": [{"description": "Tiled", "log_id": "36Veq2iCTx9sre64X04+WurNohKkal6OOxLAIERcKnM=", "key": "\(key)",
                "submission_url": "https://tiled.example/", "monitoring_url": "https://tiled.example/m/", "mmd": 60, "log_type": "test",
                "state": {"readonly": {"timestamp": "2026-01-01T00:00:00Z", "final_tree_head": {"tree_size": 1, "sha256_root_hash": "AA=="}}},
                "previous_operators": [{"name": "Before", "end_time": "2025-06-01T00:00:00Z"}]}]}]}
            """
        let list = try CertificateTransparencyLogList(json: Data(json.utf8))
        let log = try #require(list.logs.first)
        #expect(!log.isRFC6962)
        #expect(log.logType == "test")
        #expect(log.url == "https://tiled.example/")
        #expect(log.state?.kind == .readonly)
        #expect(log.operatorName(at: date("2025-05-31T00:00:00Z")) == "Before")
        #expect(log.operatorName(at: date("2025-06-01T00:00:00Z")) == "Now")
        #expect(abs(list.timestamp.timeIntervalSince(date("2026-11-20T10:00:00Z")) - 0.25) < 0.001)
    }

    @Test func aLogListedTwiceIsRefused() {
        let json = mutated {
            $0 = $0.replacingOccurrences(
                of: "tz77JN+cTbp18jnFulj0bF38Qs96nzXEnh0JgSXttJk=",
                with: "36Veq2iCTx9sre64X04+WurNohKkal6OOxLAIERcKnM="
            ).replacingOccurrences(
                of:
                    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEsz0OeL7jrVxEXJu+o4QWQYLKyokXHiPOOKVUL3/TNFFquVzDSer7kZ3gijxzBp98ZTgRgMSaWgCmZ8OD74mFUQ==",
                with:
                    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEhjyxDVIjWt5u9sB/o2S8rcGJ2pdZTGA8+IpXhI/tvKBjElGE5r3de4yAfeOPhqTqqc+o7vPgXnDgu/a9/B+RLg=="
            )
        }
        #expect(refused(json)?.code == .invalidLogList)
    }

    @Test func listsAreEqualWhenReadFromTheSameBytes() throws {
        let a = try CertificateTransparencyLogList(json: Data(Self.googleExcerpt.utf8))
        let b = try CertificateTransparencyLogList(json: Data(Self.googleExcerpt.utf8))
        let c = try CertificateTransparencyLogList(
            json: Data(Self.googleExcerpt.replacingOccurrences(of: "8.1", with: "8.2").utf8)
        )
        #expect(a == b)
        #expect(a != c)
    }
}
