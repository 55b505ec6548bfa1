// Real Certificate Transparency known-answer fixtures: public certificates with embedded SCTs,
// their real issuers, and the real public keys of the CT logs that signed those SCTs.
// Every SCT signature below was checked independently (Python, RFC 6962 section 3.2 precert_entry
// reconstruction, ECDSA P-256 / RSA PKCS#1 v1.5 with SHA-256) and every log ID equals
// base64(SHA-256(DER SubjectPublicKeyInfo of the key)). Changing any single byte of a rebuilt precert TBS
// made the check fail.

/// A CT log that signed one of the fixture SCTs.
struct CTKnownAnswerLog: Sendable {
    /// The log's `description` in the log list.
    let description: String
    /// The name of the operator that owns the log in the log list.
    let operatorName: String
    /// base64 of the DER SubjectPublicKeyInfo (`key` in the log list).
    let keyBase64: String
    /// base64 of SHA-256 over the DER SubjectPublicKeyInfo (`log_id` in the log list).
    let logIDBase64: String
    /// `ecdsa-p256-sha256` or `rsa-pkcs1v15-sha256` (RFC 5246 SignatureAndHashAlgorithm of the SCTs).
    let signatureAlgorithm: String
}

/// One SCT embedded in a fixture leaf, in the order it appears in the SCT list extension.
struct CTKnownAnswerSCT: Sendable {
    let logIDBase64: String
    let timestampMilliseconds: UInt64
}

enum CTKnownAnswer {
    // MARK: - Logs

    /// Google 'Icarus' log (https://ct.googleapis.com/icarus/), operator Google. Key and log ID from x-stp/rxtls,
    /// `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log list v3,
    /// version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let googleIcarus = CTKnownAnswerLog(
        description: "Google 'Icarus' log",
        operatorName: "Google",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAETtK8v7MICve56qTHHDhhBOuV4IlUaESxZryCfk9QbG9co/CqPvTsgPDbCpp6oFtyAHwlDhnvr7JijXRD9Cb2FA==",
        logIDBase64: "KTxRllTIOWW6qlD8WAfUt2+/WHopctykwwz05UVH9Hg=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Google 'Pilot' log (https://ct.googleapis.com/pilot/), operator Google. Key and log ID from x-stp/rxtls,
    /// `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log list v3,
    /// version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let googlePilot = CTKnownAnswerLog(
        description: "Google 'Pilot' log",
        operatorName: "Google",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEfahLEimAoz2t01p3uMziiLOl/fHTDM0YDOhBRuiBARsV4UvxG2LdNgoIGLrtCzWE0J5APC2em4JlvR8EEEFMoA==",
        logIDBase64: "pLkJkLQYWBSHuxOizGdwCjw1mAT5G9+443fNDsgN3BA=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Google 'Rocketeer' log (https://ct.googleapis.com/rocketeer/), operator Google. Key and log ID from x-stp/rxtls,
    /// `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log list v3,
    /// version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let googleRocketeer = CTKnownAnswerLog(
        description: "Google 'Rocketeer' log",
        operatorName: "Google",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEIFsYyDzBi7MxCAC/oJBXK7dHjG+1aLCOkHjpoHPqTyghLpzA9BYbqvnV16mAw04vUjyYASVGJCUoI3ctBcJAeg==",
        logIDBase64: "7ku9t3XOYLrhQmkfq+GeZqMPfl+wctiDAMR7iXqo/cs=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Google 'Argon2023' log (https://ct.googleapis.com/logs/argon2023/), operator Google. Key and log ID from
    /// x-stp/rxtls, `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log
    /// list v3, version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let googleArgon2023 = CTKnownAnswerLog(
        description: "Google 'Argon2023' log",
        operatorName: "Google",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE0JCPZFJOQqyEti5M8j13ALN3CAVHqkVM4yyOcKWCu2yye5yYeqDpEXYoALIgtM3TmHtNlifmt+4iatGwLpF3eA==",
        logIDBase64: "6D7Q2j71BjUy51covIlryQPTy9ERa+zraeF3fW0GvW4=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Google 'Xenon2022' log (https://ct.googleapis.com/logs/xenon2022/), operator Google. Key and log ID from
    /// x-stp/rxtls, `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log
    /// list v3, version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let googleXenon2022 = CTKnownAnswerLog(
        description: "Google 'Xenon2022' log",
        operatorName: "Google",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE+WS9FSxAYlCVEzg8xyGwOrmPonoV14nWjjETAIdZvLvukPzIWBMKv6tDNlQjpIHNrUcUt1igRPpqoKDXw2MeKw==",
        logIDBase64: "RqVV63X6kSAwtaKJafTzfREsQXS+/Um4havy/HD+bUc=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Cloudflare 'Nimbus2022' Log (https://ct.cloudflare.com/logs/nimbus2022/), operator Cloudflare. Key and log ID
    /// from x-stp/rxtls, `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's
    /// CT log list v3, version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let cloudflareNimbus2022 = CTKnownAnswerLog(
        description: "Cloudflare 'Nimbus2022' Log",
        operatorName: "Cloudflare",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAESLJHTlAycmJKDQxIv60pZG8g33lSYxYpCi5gteI6HLevWbFVCdtZx+m9b+0LrwWWl/87mkNN6xE0M4rnrIPA/w==",
        logIDBase64: "QcjKsd8iRkoQxqE6CUKHXk4xixsD6+tLx2jwkGKWBvY=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Cloudflare 'Nimbus2023' Log (https://ct.cloudflare.com/logs/nimbus2023/), operator Cloudflare. Key and log ID
    /// from x-stp/rxtls, `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's
    /// CT log list v3, version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let cloudflareNimbus2023 = CTKnownAnswerLog(
        description: "Cloudflare 'Nimbus2023' Log",
        operatorName: "Cloudflare",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEi/8tkhjLRp0SXrlZdTzNkTd6HqmcmXiDJz3fAdWLgOhjmv4mohvRhwXul9bgW0ODgRwC9UGAgH/vpGHPvIS1qA==",
        logIDBase64: "ejKMVNi3LbYg6jjgUh7phBZwMhOFTTvSK8E6V6NS61I=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// DigiCert Log Server (https://ct1.digicert-ct.com/log/), operator DigiCert. Key and log ID from x-stp/rxtls,
    /// `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log list v3,
    /// version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let digiCertLogServer = CTKnownAnswerLog(
        description: "DigiCert Log Server",
        operatorName: "DigiCert",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEAkbFvhu7gkAW6MHSrBlpE1n4+HCFRkC5OLAjgqhkTH+/uzSfSl8ois8ZxAD2NgaTZe1M9akhYlrYkes4JECs6A==",
        logIDBase64: "VhQGmi/XwuzT9eG9RLI+x0Z2ubyZEVzA75SYVdaJ0N0=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Venafi log (https://ctlog.api.venafi.com/), operator Venafi. Key and log ID from x-stp/rxtls,
    /// `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log list v3,
    /// version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let venafi = CTKnownAnswerLog(
        description: "Venafi log",
        operatorName: "Venafi",
        keyBase64:
            "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAolpIHxdSlTXLo1s6H1OCdpSj/4DyHDc8wLG9wVmLqy1lk9fz4ATVmm+/1iN2Nk8jmctUKK2MFUtlWXZBSpym97M7frGlSaQXUWyA3CqQUEuIJOmlEjKTBEiQAvpfDjCHjlV2Be4qTM6jamkJbiWtgnYPhJL6ONaGTiSPm7Byy57iaz/hbckldSOIoRhYBiMzeNoA0DiRZ9KmfSeXZ1rB8y8X5urSW+iBzf2SaOfzBvDpcoTuAaWx2DPazoOl28fP1hZ+kHUYvxbcMjttjauCFx+JII0dmuZNIwjfeG/GBb9frpSX219k1O4Wi6OEbHEr8at/XQ0y7gTikOxBn/s5wQIDAQAB",
        logIDBase64: "rDua7X+pZ0dXFZ5tfVdWcvnZgQCUHpve/+yhMTt1eC0=",
        signatureAlgorithm: "rsa-pkcs1v15-sha256"
    )

    /// Sectigo 'Mammoth' CT log (https://mammoth.ct.comodo.com/), operator Sectigo. Key and log ID from x-stp/rxtls,
    /// `all_logs_list.json` @ 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log list v3,
    /// version 53.34, log_list_timestamp 2025-05-05T12:54:12Z).
    static let sectigoMammoth = CTKnownAnswerLog(
        description: "Sectigo 'Mammoth' CT log",
        operatorName: "Sectigo",
        keyBase64:
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE7+R9dC4VFbbpuyOL+yy14ceAmEf7QGlo/EmtYU6DRzwat43f/3swtLr/L8ugFOOt1YU/RFmMjGCL17ixv66MZw==",
        logIDBase64: "b1N2rDHwMRnYmQCkURX/dxUcEdkCwQApBo2yCJo32RM=",
        signatureAlgorithm: "ecdsa-p256-sha256"
    )

    /// Every log that signed an SCT in the fixtures below. Source: x-stp/rxtls, `all_logs_list.json` @
    /// 83052c5f891156afcca8981b7ccb7e5cbab266bb (a vendored copy of Google's CT log list v3, version 53.34,
    /// log_list_timestamp 2025-05-05T12:54:12Z).
    static let logs: [CTKnownAnswerLog] = [
        googleIcarus,
        googlePilot,
        googleRocketeer,
        googleArgon2023,
        googleXenon2022,
        cloudflareNimbus2022,
        cloudflareNimbus2023,
        digiCertLogServer,
        venafi,
        sectigoMammoth,
    ]

    // MARK: - Fixture 1: cryptography.io

    /// Leaf `cryptography.io`, issued by `Let's Encrypt Authority X3`. notBefore 2018-09-26T19:56:33Z, notAfter
    /// 2018-12-25T19:56:33Z. 2 embedded SCTs. Source: pyca/cryptography,
    /// `vectors/cryptography_vectors/x509/cryptography-scts.pem` @ a45c7ca16205fee030cd81ec50aedf870b71bafe.
    static let cryptographyIOLeafPEM = """
        -----BEGIN CERTIFICATE-----
        MIIGCzCCBPOgAwIBAgISA9MzcqjnMT3tsDXK3Lry4uRIMA0GCSqGSIb3DQEBCwUA
        MEoxCzAJBgNVBAYTAlVTMRYwFAYDVQQKEw1MZXQncyBFbmNyeXB0MSMwIQYDVQQD
        ExpMZXQncyBFbmNyeXB0IEF1dGhvcml0eSBYMzAeFw0xODA5MjYxOTU2MzNaFw0x
        ODEyMjUxOTU2MzNaMBoxGDAWBgNVBAMTD2NyeXB0b2dyYXBoeS5pbzCCASIwDQYJ
        KoZIhvcNAQEBBQADggEPADCCAQoCggEBAKJDpCL99DVo83587MrVp6gunmKRoUfY
        vcgk5u2v0tB9OmZkcIY37z6AunHWr18Yj55zHmm6G8Nf35hmu3ql2A26WThCbmOe
        WXbxhgarkningZI9opUWnI2dIllguVIsq99GzhpNnDdCb26s5+SRhJI4cr4hYaKC
        XGDKooKWyXUX09SJTq7nW/1+pq3y9ZMvldRKjJALeAdwnC7kmUB6pK7q8J2VlpfQ
        wqGu6q/WHVdgnhWARw3GEFJWDn9wkxBAF08CpzhVaEj+iK+Ut/1HBgNYwqI47h7S
        q+qv0G2qklRVUtEM0zYRsp+y/6vivdbFLlPw8VaerbpJN3gLtpVNcGECAwEAAaOC
        AxkwggMVMA4GA1UdDwEB/wQEAwIFoDAdBgNVHSUEFjAUBggrBgEFBQcDAQYIKwYB
        BQUHAwIwDAYDVR0TAQH/BAIwADAdBgNVHQ4EFgQUjbe0bE1aZ8HiqtwqUfCe15bF
        V8UwHwYDVR0jBBgwFoAUqEpqYwR93brm0Tm3pkVl7/Oo7KEwbwYIKwYBBQUHAQEE
        YzBhMC4GCCsGAQUFBzABhiJodHRwOi8vb2NzcC5pbnQteDMubGV0c2VuY3J5cHQu
        b3JnMC8GCCsGAQUFBzAChiNodHRwOi8vY2VydC5pbnQteDMubGV0c2VuY3J5cHQu
        b3JnLzAaBgNVHREEEzARgg9jcnlwdG9ncmFwaHkuaW8wgf4GA1UdIASB9jCB8zAI
        BgZngQwBAgEwgeYGCysGAQQBgt8TAQEBMIHWMCYGCCsGAQUFBwIBFhpodHRwOi8v
        Y3BzLmxldHNlbmNyeXB0Lm9yZzCBqwYIKwYBBQUHAgIwgZ4MgZtUaGlzIENlcnRp
        ZmljYXRlIG1heSBvbmx5IGJlIHJlbGllZCB1cG9uIGJ5IFJlbHlpbmcgUGFydGll
        cyBhbmQgb25seSBpbiBhY2NvcmRhbmNlIHdpdGggdGhlIENlcnRpZmljYXRlIFBv
        bGljeSBmb3VuZCBhdCBodHRwczovL2xldHNlbmNyeXB0Lm9yZy9yZXBvc2l0b3J5
        LzCCAQYGCisGAQQB1nkCBAIEgfcEgfQA8gB3ACk8UZZUyDlluqpQ/FgH1Ldvv1h6
        KXLcpMMM9OVFR/R4AAABZherSukAAAQDAEgwRgIhAKXOqHxQbnGMJuNIu/QLwQ51
        6E195jqLTR5+iQpy2qRAAiEA3qnx0MNT/NM34VtxX4AohXWAXUt3AsAnAu7Y9xVO
        fHIAdwBvU3asMfAxGdiZAKRRFf93FRwR2QLBACkGjbIImjfZEwAAAWYXq0twAAAE
        AwBIMEYCIQCi4Nn+Y5QU+L3N1/adsJDVuJIHtIDHisLFxA42HpKjpgIhALznDcOE
        Mfr8hR8lwCNOXN5LkGTgjTx7yttkY+90h2cQMA0GCSqGSIb3DQEBCwUAA4IBAQAq
        uKFBh6Rc4kH9yEVNYMu+tv/xCluzCKHvCAmxUF6eF5K9nTFB4gkWjsBCiC+WlCJh
        OX53Xg6ZQVCt7dpIk6C2RatNrZt+TnNevDZ04x0+YhMoDUREZay0cZ3h62GsdbQQ
        1UCqDipcNfm1Lr3noCzQJlTejK5cjc/8WozMIxAZorJnIf0kBHXCniRepu5gCmjn
        0WDCj1uLmFr3jRXRiQ8E+ygXh7PclxMHXsVooeZvkBjGoYJCKKirWaDUzw/1bmbG
        ZnA/tGyBdUMMyDzd7qcnBYDOIH8UyXo1ySOYyt9sH0OJXBfmxwHkShvD1VbxCmOT
        DJbhFMA/rdWmsV8a/ZiD
        -----END CERTIFICATE-----
        """

    /// Issuer `Let's Encrypt Authority X3` (notBefore 2016-10-06T15:43:55Z, notAfter 2021-10-06T15:43:55Z). Source:
    /// letsencrypt/website, `static/certs/letsencryptauthorityx3.pem.txt` @ dba3d7067c54a6f25f5f9f1cd3e7886edfb77ad1
    /// (https://letsencrypt.org/certs/letsencryptauthorityx3.pem.txt). This is the ISRG-Root-X1-signed X3. The
    /// IdenTrust cross-signed X3 has the same subject and SubjectPublicKeyInfo, so either gives the same
    /// issuer_key_hash. The leaf's signature verifies under this key.
    static let cryptographyIOIssuerPEM = """
        -----BEGIN CERTIFICATE-----
        MIIFjTCCA3WgAwIBAgIRANOxciY0IzLc9AUoUSrsnGowDQYJKoZIhvcNAQELBQAw
        TzELMAkGA1UEBhMCVVMxKTAnBgNVBAoTIEludGVybmV0IFNlY3VyaXR5IFJlc2Vh
        cmNoIEdyb3VwMRUwEwYDVQQDEwxJU1JHIFJvb3QgWDEwHhcNMTYxMDA2MTU0MzU1
        WhcNMjExMDA2MTU0MzU1WjBKMQswCQYDVQQGEwJVUzEWMBQGA1UEChMNTGV0J3Mg
        RW5jcnlwdDEjMCEGA1UEAxMaTGV0J3MgRW5jcnlwdCBBdXRob3JpdHkgWDMwggEi
        MA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCc0wzwWuUuR7dyXTeDs2hjMOrX
        NSYZJeG9vjXxcJIvt7hLQQWrqZ41CFjssSrEaIcLo+N15Obzp2JxunmBYB/XkZqf
        89B4Z3HIaQ6Vkc/+5pnpYDxIzH7KTXcSJJ1HG1rrueweNwAcnKx7pwXqzkrrvUHl
        Npi5y/1tPJZo3yMqQpAMhnRnyH+lmrhSYRQTP2XpgofL2/oOVvaGifOFP5eGr7Dc
        Gu9rDZUWfcQroGWymQQ2dYBrrErzG5BJeC+ilk8qICUpBMZ0wNAxzY8xOJUWuqgz
        uEPxsR/DMH+ieTETPS02+OP88jNquTkxxa/EjQ0dZBYzqvqEKbbUC8DYfcOTAgMB
        AAGjggFnMIIBYzAOBgNVHQ8BAf8EBAMCAYYwEgYDVR0TAQH/BAgwBgEB/wIBADBU
        BgNVHSAETTBLMAgGBmeBDAECATA/BgsrBgEEAYLfEwEBATAwMC4GCCsGAQUFBwIB
        FiJodHRwOi8vY3BzLnJvb3QteDEubGV0c2VuY3J5cHQub3JnMB0GA1UdDgQWBBSo
        SmpjBH3duubRObemRWXv86jsoTAzBgNVHR8ELDAqMCigJqAkhiJodHRwOi8vY3Js
        LnJvb3QteDEubGV0c2VuY3J5cHQub3JnMHIGCCsGAQUFBwEBBGYwZDAwBggrBgEF
        BQcwAYYkaHR0cDovL29jc3Aucm9vdC14MS5sZXRzZW5jcnlwdC5vcmcvMDAGCCsG
        AQUFBzAChiRodHRwOi8vY2VydC5yb290LXgxLmxldHNlbmNyeXB0Lm9yZy8wHwYD
        VR0jBBgwFoAUebRZ5nu25eQBc4AIiMgaWPbpm24wDQYJKoZIhvcNAQELBQADggIB
        ABnPdSA0LTqmRf/Q1eaM2jLonG4bQdEnqOJQ8nCqxOeTRrToEKtwT++36gTSlBGx
        A/5dut82jJQ2jxN8RI8L9QFXrWi4xXnA2EqA10yjHiR6H9cj6MFiOnb5In1eWsRM
        UM2v3e9tNsCAgBukPHAg1lQh07rvFKm/Bz9BCjaxorALINUfZ9DD64j2igLIxle2
        DPxW8dI/F2loHMjXZjqG8RkqZUdoxtID5+90FgsGIfkMpqgRS05f4zPbCEHqCXl1
        eO5HyELTgcVlLXXQDgAWnRzut1hFJeczY1tjQQno6f6s+nMydLN26WuU4s3UYvOu
        OsUxRlJu7TSRHqDC3lSE5XggVkzdaPkuKGQbGpny+01/47hfXXNB7HntWNZ6N2Vw
        p7G6OfY+YQrZwIaQmhrIqJZuigsrbe3W+gdn5ykE9+Ky0VgVUsfxo52mwFYs1JKY
        2PGDuWx8M6DlS6qQkvHaRUo0FMd8TsSlbF0/v965qGFKhSDeQoMpYnwcmQilRh/0
        ayLThlHLN81gSkJjVrPI0Y8xCVPB4twb1PFUd2fPM3sA1tJ83sZ5v8vgFv2yofKR
        PB0t6JzUA81mSqM3kxl5e+IZwhYAyO0OTg3/fs8HqGTNKd9BqoUwSRBzp06JMg5b
        rUCGwbCUDI0mxadJ3Bz4WxR6fyNpBK2yAinWEsikxqEt
        -----END CERTIFICATE-----
        """

    /// issuer_key_hash for the precert_entry: base64(SHA-256(DER SubjectPublicKeyInfo of `cryptographyIOIssuerPEM`)),
    /// computed with Python `cryptography` and `hashlib` (see /tmp/ctkat/verify.py).
    static let cryptographyIOIssuerKeyHashBase64 = "YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="

    /// The SCTs embedded in `cryptographyIOLeafPEM`, in list order, read from its SCT list extension (OID
    /// 1.3.6.1.4.1.11129.2.4.2). All are v1, have no extensions, use SHA-256, and verify under the matching key in
    /// `logs`: Google 'Icarus' log at 1537995393769; Sectigo 'Mammoth' CT log at 1537995393904.
    static let cryptographyIOSCTs: [CTKnownAnswerSCT] = [
        CTKnownAnswerSCT(
            logIDBase64: "KTxRllTIOWW6qlD8WAfUt2+/WHopctykwwz05UVH9Hg=",
            timestampMilliseconds: 1_537_995_393_769
        ),
        CTKnownAnswerSCT(
            logIDBase64: "b1N2rDHwMRnYmQCkURX/dxUcEdkCwQApBo2yCJo32RM=",
            timestampMilliseconds: 1_537_995_393_904
        ),
    ]

    // MARK: - Fixture 2: www.google.com

    /// Leaf `www.google.com`, issued by `GTS CA 1C3`. notBefore 2023-01-02T08:19:19Z, notAfter 2023-03-27T08:19:18Z. 2
    /// embedded SCTs. Source: golang/go, `src/crypto/x509/verify_test.go` (constant `googleLeaf`) @
    /// 0061fdb4b9533e20f8f798b12376ab19bf07b647.
    static let googleComLeafPEM = """
        -----BEGIN CERTIFICATE-----
        MIIFUjCCBDqgAwIBAgIQERmRWTzVoz0SMeozw2RM3DANBgkqhkiG9w0BAQsFADBG
        MQswCQYDVQQGEwJVUzEiMCAGA1UEChMZR29vZ2xlIFRydXN0IFNlcnZpY2VzIExM
        QzETMBEGA1UEAxMKR1RTIENBIDFDMzAeFw0yMzAxMDIwODE5MTlaFw0yMzAzMjcw
        ODE5MThaMBkxFzAVBgNVBAMTDnd3dy5nb29nbGUuY29tMIIBIjANBgkqhkiG9w0B
        AQEFAAOCAQ8AMIIBCgKCAQEAq30odrKMT54TJikMKL8S+lwoCMT5geP0u9pWjk6a
        wdB6i3kO+UE4ijCAmhbcZKeKaLnGJ38weZNwB1ayabCYyX7hDiC/nRcZU49LX5+o
        55kDVaNn14YKkg2kCeX25HDxSwaOsNAIXKPTqiQL5LPvc4Twhl8HY51hhNWQrTEr
        N775eYbixEULvyVLq5BLbCOpPo8n0/MTjQ32ku1jQq3GIYMJC/Rf2VW5doF6t9zs
        KleflAN8OdKp0ME9OHg0T1P3yyb67T7n0SpisHbeG06AmQcKJF9g/9VPJtRf4l1Q
        WRPDC+6JUqzXCxAGmIRGZ7TNMxPMBW/7DRX6w8oLKVNb0wIDAQABo4ICZzCCAmMw
        DgYDVR0PAQH/BAQDAgWgMBMGA1UdJQQMMAoGCCsGAQUFBwMBMAwGA1UdEwEB/wQC
        MAAwHQYDVR0OBBYEFBnboj3lf9+Xat4oEgo6ZtIMr8ZuMB8GA1UdIwQYMBaAFIp0
        f6+Fze6VzT2c0OJGFPNxNR0nMGoGCCsGAQUFBwEBBF4wXDAnBggrBgEFBQcwAYYb
        aHR0cDovL29jc3AucGtpLmdvb2cvZ3RzMWMzMDEGCCsGAQUFBzAChiVodHRwOi8v
        cGtpLmdvb2cvcmVwby9jZXJ0cy9ndHMxYzMuZGVyMBkGA1UdEQQSMBCCDnd3dy5n
        b29nbGUuY29tMCEGA1UdIAQaMBgwCAYGZ4EMAQIBMAwGCisGAQQB1nkCBQMwPAYD
        VR0fBDUwMzAxoC+gLYYraHR0cDovL2NybHMucGtpLmdvb2cvZ3RzMWMzL1FPdkow
        TjFzVDJBLmNybDCCAQQGCisGAQQB1nkCBAIEgfUEgfIA8AB2AHoyjFTYty22IOo4
        4FIe6YQWcDIThU070ivBOlejUutSAAABhXHHOiUAAAQDAEcwRQIgBUkikUIXdo+S
        3T8PP0/cvokhUlumRE3GRWGL4WRMLpcCIQDY+bwK384mZxyXGZ5lwNRTAPNzT8Fx
        1+//nbaGK3BQMAB2AOg+0No+9QY1MudXKLyJa8kD08vREWvs62nhd31tBr1uAAAB
        hXHHOfQAAAQDAEcwRQIgLoVydNfMFKV9IoZR+M0UuJ2zOqbxIRum7Sn9RMPOBGMC
        IQD1/BgzCSDTvYvco6kpB6ifKSbg5gcb5KTnYxQYwRW14TANBgkqhkiG9w0BAQsF
        AAOCAQEA2bQQu30e3OFu0bmvQHmcqYvXBu6tF6e5b5b+hj4O+Rn7BXTTmaYX3M6p
        MsfRH4YVJJMB/dc3PROR2VtnKFC6gAZX+RKM6nXnZhIlOdmQnonS1ecOL19PliUd
        VXbwKjXqAO0Ljd9y9oXaXnyPyHmUJNI5YXAcxE+XXiOZhcZuMYyWmoEKJQ/XlSga
        zWfTn1IcKhA3IC7A1n/5bkkWD1Xi1mdWFQ6DQDMp//667zz7pKOgFMlB93aPDjvI
        c78zEqNswn6xGKXpWF5xVwdFcsx9HKhJ6UAi2bQ/KQ1yb7LPUOR6wXXWrG1cLnNP
        i8eNLnKL9PXQ+5SwJFCzfEhcIZuhzg==
        -----END CERTIFICATE-----
        """

    /// Issuer `GTS CA 1C3` (notBefore 2020-08-13T00:00:42Z, notAfter 2027-09-30T00:00:42Z). Source: golang/go,
    /// `src/crypto/x509/verify_test.go` (constant `gtsIntermediate`) @ 0061fdb4b9533e20f8f798b12376ab19bf07b647
    static let googleComIssuerPEM = """
        -----BEGIN CERTIFICATE-----
        MIIFljCCA36gAwIBAgINAgO8U1lrNMcY9QFQZjANBgkqhkiG9w0BAQsFADBHMQsw
        CQYDVQQGEwJVUzEiMCAGA1UEChMZR29vZ2xlIFRydXN0IFNlcnZpY2VzIExMQzEU
        MBIGA1UEAxMLR1RTIFJvb3QgUjEwHhcNMjAwODEzMDAwMDQyWhcNMjcwOTMwMDAw
        MDQyWjBGMQswCQYDVQQGEwJVUzEiMCAGA1UEChMZR29vZ2xlIFRydXN0IFNlcnZp
        Y2VzIExMQzETMBEGA1UEAxMKR1RTIENBIDFDMzCCASIwDQYJKoZIhvcNAQEBBQAD
        ggEPADCCAQoCggEBAPWI3+dijB43+DdCkH9sh9D7ZYIl/ejLa6T/belaI+KZ9hzp
        kgOZE3wJCor6QtZeViSqejOEH9Hpabu5dOxXTGZok3c3VVP+ORBNtzS7XyV3NzsX
        lOo85Z3VvMO0Q+sup0fvsEQRY9i0QYXdQTBIkxu/t/bgRQIh4JZCF8/ZK2VWNAcm
        BA2o/X3KLu/qSHw3TT8An4Pf73WELnlXXPxXbhqW//yMmqaZviXZf5YsBvcRKgKA
        gOtjGDxQSYflispfGStZloEAoPtR28p3CwvJlk/vcEnHXG0g/Zm0tOLKLnf9LdwL
        tmsTDIwZKxeWmLnwi/agJ7u2441Rj72ux5uxiZ0CAwEAAaOCAYAwggF8MA4GA1Ud
        DwEB/wQEAwIBhjAdBgNVHSUEFjAUBggrBgEFBQcDAQYIKwYBBQUHAwIwEgYDVR0T
        AQH/BAgwBgEB/wIBADAdBgNVHQ4EFgQUinR/r4XN7pXNPZzQ4kYU83E1HScwHwYD
        VR0jBBgwFoAU5K8rJnEaK0gnhS9SZizv8IkTcT4waAYIKwYBBQUHAQEEXDBaMCYG
        CCsGAQUFBzABhhpodHRwOi8vb2NzcC5wa2kuZ29vZy9ndHNyMTAwBggrBgEFBQcw
        AoYkaHR0cDovL3BraS5nb29nL3JlcG8vY2VydHMvZ3RzcjEuZGVyMDQGA1UdHwQt
        MCswKaAnoCWGI2h0dHA6Ly9jcmwucGtpLmdvb2cvZ3RzcjEvZ3RzcjEuY3JsMFcG
        A1UdIARQME4wOAYKKwYBBAHWeQIFAzAqMCgGCCsGAQUFBwIBFhxodHRwczovL3Br
        aS5nb29nL3JlcG9zaXRvcnkvMAgGBmeBDAECATAIBgZngQwBAgIwDQYJKoZIhvcN
        AQELBQADggIBAIl9rCBcDDy+mqhXlRu0rvqrpXJxtDaV/d9AEQNMwkYUuxQkq/BQ
        cSLbrcRuf8/xam/IgxvYzolfh2yHuKkMo5uhYpSTld9brmYZCwKWnvy15xBpPnrL
        RklfRuFBsdeYTWU0AIAaP0+fbH9JAIFTQaSSIYKCGvGjRFsqUBITTcFTNvNCCK9U
        +o53UxtkOCcXCb1YyRt8OS1b887U7ZfbFAO/CVMkH8IMBHmYJvJh8VNS/UKMG2Yr
        PxWhu//2m+OBmgEGcYk1KCTd4b3rGS3hSMs9WYNRtHTGnXzGsYZbr8w0xNPM1IER
        lQCh9BIiAfq0g3GvjLeMcySsN1PCAJA/Ef5c7TaUEDu9Ka7ixzpiO2xj2YC/WXGs
        Yye5TBeg2vZzFb8q3o/zpWwygTMD0IZRcZk0upONXbVRWPeyk+gB9lm+cZv9TSjO
        z23HFtz30dZGm6fKa+l3D/2gthsjgx0QGtkJAITgRNOidSOzNIb2ILCkXhAd4FJG
        AJ2xDx8hcFH1mt0G/FX0Kw4zd8NLQsLxdxP8c4CU6x+7Nz/OAipmsHMdMqUybDKw
        juDEI/9bfU1lcKwrmz3O2+BtjjKAvpafkmO8l7tdufThcV4q5O8DIrGKZTqPwJNl
        1IXNDw9bg1kWRxYtnCQ6yICmJhSFm/Y3m6xv+cXDBlHz4n/FsRC6UfTd
        -----END CERTIFICATE-----
        """

    /// issuer_key_hash for the precert_entry: base64(SHA-256(DER SubjectPublicKeyInfo of `googleComIssuerPEM`)),
    /// computed with Python `cryptography` and `hashlib` (see /tmp/ctkat/verify.py).
    static let googleComIssuerKeyHashBase64 = "zCTnfLwLKbS9S2sbp+uFz4KZOocFvXxkV06Ce9O5M2w="

    /// The SCTs embedded in `googleComLeafPEM`, in list order, read from its SCT list extension (OID
    /// 1.3.6.1.4.1.11129.2.4.2). All are v1, have no extensions, use SHA-256, and verify under the matching key in
    /// `logs`: Cloudflare 'Nimbus2023' Log at 1672651160101; Google 'Argon2023' log at 1672651160052.
    static let googleComSCTs: [CTKnownAnswerSCT] = [
        CTKnownAnswerSCT(
            logIDBase64: "ejKMVNi3LbYg6jjgUh7phBZwMhOFTTvSK8E6V6NS61I=",
            timestampMilliseconds: 1_672_651_160_101
        ),
        CTKnownAnswerSCT(
            logIDBase64: "6D7Q2j71BjUy51covIlryQPTy9ERa+zraeF3fW0GvW4=",
            timestampMilliseconds: 1_672_651_160_052
        ),
    ]

    // MARK: - Fixture 3: *.facebook.com

    /// Leaf `*.facebook.com`, issued by `DigiCert SHA2 High Assurance Server CA`. notBefore 2016-12-09T00:00:00Z,
    /// notAfter 2018-01-25T12:00:00Z. 4 embedded SCTs. Source: swift-libp2p/swift-libp2p-crypto,
    /// `Tests/LibP2PCryptoTests/pem.swift` (constant `TestPEMKeys.CERT_FACEBOOK`) @
    /// 552da57bf54b62988fd2a23e0e3526421ef7801d.
    static let facebookComLeafPEM = """
        -----BEGIN CERTIFICATE-----
        MIIH5DCCBsygAwIBAgIQDACZt9eJyfZmJjF+vOp8HDANBgkqhkiG9w0BAQsFADBw
        MQswCQYDVQQGEwJVUzEVMBMGA1UEChMMRGlnaUNlcnQgSW5jMRkwFwYDVQQLExB3
        d3cuZGlnaWNlcnQuY29tMS8wLQYDVQQDEyZEaWdpQ2VydCBTSEEyIEhpZ2ggQXNz
        dXJhbmNlIFNlcnZlciBDQTAeFw0xNjEyMDkwMDAwMDBaFw0xODAxMjUxMjAwMDBa
        MGkxCzAJBgNVBAYTAlVTMRMwEQYDVQQIEwpDYWxpZm9ybmlhMRMwEQYDVQQHEwpN
        ZW5sbyBQYXJrMRcwFQYDVQQKEw5GYWNlYm9vaywgSW5jLjEXMBUGA1UEAwwOKi5m
        YWNlYm9vay5jb20wWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASg8YyvpzmIaFsT
        Vg4VFbSnRe8bx+WFPCsE1GWKMTEi6qOS7WSdumWB47YSdtizC0Xx/wooFJxP3HOp
        s0ktoHbTo4IFSjCCBUYwHwYDVR0jBBgwFoAUUWj/kK8CB3U8zNllZGKiErhZcjsw
        HQYDVR0OBBYEFMuYKIyhcufiMqmaPfINoYFWoRqLMIHHBgNVHREEgb8wgbyCDiou
        ZmFjZWJvb2suY29tgg4qLmZhY2Vib29rLm5ldIIIKi5mYi5jb22CCyouZmJjZG4u
        bmV0ggsqLmZic2J4LmNvbYIQKi5tLmZhY2Vib29rLmNvbYIPKi5tZXNzZW5nZXIu
        Y29tgg4qLnh4LmZiY2RuLm5ldIIOKi54eS5mYmNkbi5uZXSCDioueHouZmJjZG4u
        bmV0ggxmYWNlYm9vay5jb22CBmZiLmNvbYINbWVzc2VuZ2VyLmNvbTAOBgNVHQ8B
        Af8EBAMCB4AwHQYDVR0lBBYwFAYIKwYBBQUHAwEGCCsGAQUFBwMCMHUGA1UdHwRu
        MGwwNKAyoDCGLmh0dHA6Ly9jcmwzLmRpZ2ljZXJ0LmNvbS9zaGEyLWhhLXNlcnZl
        ci1nNS5jcmwwNKAyoDCGLmh0dHA6Ly9jcmw0LmRpZ2ljZXJ0LmNvbS9zaGEyLWhh
        LXNlcnZlci1nNS5jcmwwTAYDVR0gBEUwQzA3BglghkgBhv1sAQEwKjAoBggrBgEF
        BQcCARYcaHR0cHM6Ly93d3cuZGlnaWNlcnQuY29tL0NQUzAIBgZngQwBAgIwgYMG
        CCsGAQUFBwEBBHcwdTAkBggrBgEFBQcwAYYYaHR0cDovL29jc3AuZGlnaWNlcnQu
        Y29tME0GCCsGAQUFBzAChkFodHRwOi8vY2FjZXJ0cy5kaWdpY2VydC5jb20vRGln
        aUNlcnRTSEEySGlnaEFzc3VyYW5jZVNlcnZlckNBLmNydDAMBgNVHRMBAf8EAjAA
        MIICsAYKKwYBBAHWeQIEAgSCAqAEggKcApoAdgCkuQmQtBhYFIe7E6LMZ3AKPDWY
        BPkb37jjd80OyA3cEAAAAVjl02IEAAAEAwBHMEUCIQDvWFsUeqWE/xwIYcXPvbb5
        ExzfHBZTNwfnUf4RPO/lBgIgdOGmr0j7+u8/S+7tfFw71ZEjqpwJELl/sEFuQdPn
        pwQBLwCsO5rtf6lnR1cVnm19V1Zy+dmBAJQem97/7KExO3V4LQAAAVjl02IoAAAE
        AQEAYvnMV+BfP3Wrk4yFQE/Zx5WsjSabYOpLj1Tj5xFaoVoHdGqLCf/Hi+Vv0IRy
        ePKFBCSW0+3eA589+WnCDMwcJlBYeZV8MlvHFZg3a66Uhx/OAvoetb0mCtUpnmIE
        UwLX/eMNEvjg2qTH3/33ysCo2l25+/EcR8upF+2KIcmnk5WwaJzfq7cFPQc4Cvcz
        mTHasJi/jmVaIaJ9HC50g3dx584TQX26lDLddF/Li4uEbJ7TSopnTzjQdWBtWbMF
        h3bcfhFCKaqK2kIJV3bgup5HibEnZ2LPm6lekY072ZFCGM4QYc4ukqzou2JWCRmG
        o0dMHJhnvQXpnIQGwATqCD4Q1AB2AFYUBpov18Ls0/XhvUSyPsdGdrm8mRFcwO+U
        mFXWidDdAAABWOXTYrkAAAQDAEcwRQIgGhXXbwUO5bD4Ts/Q0gqZwUS2vl/A4Hem
        k7ovxl82v9oCIQCbtkflDXbcunY4MAQCbKlnesPGc/nftA84xDhJpxFHWQB3AO5L
        vbd1zmC64UJpH6vhnmajD35fsHLYgwDEe4l6qP3LAAABWOXTZBEAAAQDAEgwRgIh
        AKubngQoa5Iak8eCOrffH7Xx3AP1NMb5pFw35nt2VSeRAiEA47Kq1UQcDXIEsV+W
        nuPd9LM5kpdeu0+TiHKtTLRQr0swDQYJKoZIhvcNAQELBQADggEBADrNSsoonbj1
        YGjwy9t9wP9+kZBwrNMO2n5N5fQNhGawkEAX+lXlzgm3TqYlTNi6sCFbPBAErim3
        aMVlWuOlctgnjtAdmdWZ4qEONrBLHPGgukDJ3Uen/EC/gwK6KdBCb4Ttp6MMPY1c
        hb/ciTLi3QUUU4h4OJWqUjvccBCDs/LydNjKWZZTxLJmxRSmfpyCU3uU2XHHMNlo
        8UTIlqZsOtdqhg7/Q/cvMDHDkcI/tqelmg0MD2H9KpcmAvVkwgjn+BVpv5HELl+0
        EP0UhYknI1B6LBecJuj7jI26eXZdX35CYkpI/SZA9KK+OYKHh6vCxKqnRZ9ZQUOj
        XnIWKQeV5Hg=
        -----END CERTIFICATE-----
        """

    /// Issuer `DigiCert SHA2 High Assurance Server CA` (notBefore 2013-10-22T12:00:00Z, notAfter 2028-10-22T12:00:00Z).
    /// Source: DigiCert SHA2 High Assurance Server CA as published at
    /// http://cacerts.digicert.com/DigiCertSHA2HighAssuranceServerCA.crt (the leaf's AIA caIssuers URL); SHA-256
    /// fingerprint 19400be5b7a31fb733917700789d2f0a2471c0c9d506c0e504c06c16d7cb17c0, the value recorded for
    /// `tests/certs/ca/DigiCert_SHA2_High_Assurance_Server_CA.pem` in rkoopmans/python-certificate-chain-resolver,
    /// `tests/conftest.py` @ 39246ff226d2a6e97cb42bcb81756af3ac92cf53. The PEM text was copied from a public file in
    /// the code search index whose repository could not be identified. It is trusted because the fingerprint matches
    /// and the leaf's signature verifies under its key.
    static let facebookComIssuerPEM = """
        -----BEGIN CERTIFICATE-----
        MIIEsTCCA5mgAwIBAgIQBOHnpNxc8vNtwCtCuF0VnzANBgkqhkiG9w0BAQsFADBs
        MQswCQYDVQQGEwJVUzEVMBMGA1UEChMMRGlnaUNlcnQgSW5jMRkwFwYDVQQLExB3
        d3cuZGlnaWNlcnQuY29tMSswKQYDVQQDEyJEaWdpQ2VydCBIaWdoIEFzc3VyYW5j
        ZSBFViBSb290IENBMB4XDTEzMTAyMjEyMDAwMFoXDTI4MTAyMjEyMDAwMFowcDEL
        MAkGA1UEBhMCVVMxFTATBgNVBAoTDERpZ2lDZXJ0IEluYzEZMBcGA1UECxMQd3d3
        LmRpZ2ljZXJ0LmNvbTEvMC0GA1UEAxMmRGlnaUNlcnQgU0hBMiBIaWdoIEFzc3Vy
        YW5jZSBTZXJ2ZXIgQ0EwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQC2
        4C/CJAbIbQRf1+8KZAayfSImZRauQkCbztyfn3YHPsMwVYcZuU+UDlqUH1VWtMIC
        Kq/QmO4LQNfE0DtyyBSe75CxEamu0si4QzrZCwvV1ZX1QK/IHe1NnF9Xt4ZQaJn1
        itrSxwUfqJfJ3KSxgoQtxq2lnMcZgqaFD15EWCo3j/018QsIJzJa9buLnqS9UdAn
        4t07QjOjBSjEuyjMmqwrIw14xnvmXnG3Sj4I+4G3FhahnSMSTeXXkgisdaScus0X
        sh5ENWV/UyU50RwKmmMbGZJ0aAo3wsJSSMs5WqK24V3B3aAguCGikyZvFEohQcft
        bZvySC/zA/WiaJJTL17jAgMBAAGjggFJMIIBRTASBgNVHRMBAf8ECDAGAQH/AgEA
        MA4GA1UdDwEB/wQEAwIBhjAdBgNVHSUEFjAUBggrBgEFBQcDAQYIKwYBBQUHAwIw
        NAYIKwYBBQUHAQEEKDAmMCQGCCsGAQUFBzABhhhodHRwOi8vb2NzcC5kaWdpY2Vy
        dC5jb20wSwYDVR0fBEQwQjBAoD6gPIY6aHR0cDovL2NybDQuZGlnaWNlcnQuY29t
        L0RpZ2lDZXJ0SGlnaEFzc3VyYW5jZUVWUm9vdENBLmNybDA9BgNVHSAENjA0MDIG
        BFUdIAAwKjAoBggrBgEFBQcCARYcaHR0cHM6Ly93d3cuZGlnaWNlcnQuY29tL0NQ
        UzAdBgNVHQ4EFgQUUWj/kK8CB3U8zNllZGKiErhZcjswHwYDVR0jBBgwFoAUsT7D
        aQP4v0cB1JgmGggC72NkK8MwDQYJKoZIhvcNAQELBQADggEBABiKlYkD5m3fXPwd
        aOpKj4PWUS+Na0QWnqxj9dJubISZi6qBcYRb7TROsLd5kinMLYBq8I4g4Xmk/gNH
        E+r1hspZcX30BJZr01lYPf7TMSVcGDiEo+afgv2MW5gxTs14nhr9hctJqvIni5ly
        /D6q1UEL2tU2ob8cbkdJf17ZSHwD2f2LSaCYJkJA69aSEaRkCldUxPUd1gJea6zu
        xICaEnL6VpPX/78whQYwvwt/Tv9XBZ0k7YXDK/umdaisLRbvfXknsuvCnQsH6qqF
        0wGjIChBWUMo0oHjqvbsezt3tkBigAVBRQHvFwY+3sAzm2fTYS5yh+Rp/BIAV0Ae
        cPUeybQ=
        -----END CERTIFICATE-----
        """

    /// issuer_key_hash for the precert_entry: base64(SHA-256(DER SubjectPublicKeyInfo of `facebookComIssuerPEM`)),
    /// computed with Python `cryptography` and `hashlib` (see /tmp/ctkat/verify.py).
    static let facebookComIssuerKeyHashBase64 = "k2v657xBsOVe1PQRwOsHsw3bsGT2VzIqz5K+59sNQws="

    /// The SCTs embedded in `facebookComLeafPEM`, in list order, read from its SCT list extension (OID
    /// 1.3.6.1.4.1.11129.2.4.2). All are v1, have no extensions, use SHA-256, and verify under the matching key in
    /// `logs`: Google 'Pilot' log at 1481324585476; Venafi log at 1481324585512; DigiCert Log Server at 1481324585657;
    /// Google 'Rocketeer' log at 1481324586001.
    static let facebookComSCTs: [CTKnownAnswerSCT] = [
        CTKnownAnswerSCT(
            logIDBase64: "pLkJkLQYWBSHuxOizGdwCjw1mAT5G9+443fNDsgN3BA=",
            timestampMilliseconds: 1_481_324_585_476
        ),
        CTKnownAnswerSCT(
            logIDBase64: "rDua7X+pZ0dXFZ5tfVdWcvnZgQCUHpve/+yhMTt1eC0=",
            timestampMilliseconds: 1_481_324_585_512
        ),
        CTKnownAnswerSCT(
            logIDBase64: "VhQGmi/XwuzT9eG9RLI+x0Z2ubyZEVzA75SYVdaJ0N0=",
            timestampMilliseconds: 1_481_324_585_657
        ),
        CTKnownAnswerSCT(
            logIDBase64: "7ku9t3XOYLrhQmkfq+GeZqMPfl+wctiDAMR7iXqo/cs=",
            timestampMilliseconds: 1_481_324_586_001
        ),
    ]

    // MARK: - Fixture 4: signalwire.com

    /// Leaf `signalwire.com`, issued by `R3`. notBefore 2022-09-18T15:52:25Z, notAfter 2022-12-17T15:52:24Z. 2 embedded
    /// SCTs. Source: kylefmohr/signalwire-esp32-client, `src/digicert.cpp` (constant misleadingly named
    /// `DigiCertGlobalRootCA_crt`; it is the signalwire.com leaf) @ 04eaa760a67f9fdb965c89424e1152424d93951f.
    static let signalwireComLeafPEM = """
        -----BEGIN CERTIFICATE-----
        MIIGHzCCBQegAwIBAgISAwYExE5EJxuGbKlXGmHjSqyIMA0GCSqGSIb3DQEBCwUA
        MDIxCzAJBgNVBAYTAlVTMRYwFAYDVQQKEw1MZXQncyBFbmNyeXB0MQswCQYDVQQD
        EwJSMzAeFw0yMjA5MTgxNTUyMjVaFw0yMjEyMTcxNTUyMjRaMBkxFzAVBgNVBAMT
        DnNpZ25hbHdpcmUuY29tMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA
        t23knyQSRyWyNwpKTft1y7s5MOyZPRgsUxPLm9U9LBosJE7+OZYdVg8Hmjly2SJs
        Wh+N/3dm6MqrLgkD7dKsYVkvOWdyTPBPib5xLD0bICNwnhOOPsncKs24Aan20URE
        j8ZDDkXJzYkgrUZQDZT7klwnOKzoE3XWyCbhFEPsTOHFGCJE9jixfcmyTZ1U07xs
        yE5sWDf9ZuUrzd7hAQqH0wYen2RTeIUeTNbLqJ4KcjKp8avo8stEJ6g7g4npx0ah
        V1cZoE/YPJSyewC24z8ptToyREg7BcBXOPzKcugea3zTSMZIxfuaC6l/f5NCzYRK
        bziIwKeul9xcVEvpRhR4xQIDAQABo4IDRjCCA0IwDgYDVR0PAQH/BAQDAgWgMB0G
        A1UdJQQWMBQGCCsGAQUFBwMBBggrBgEFBQcDAjAMBgNVHRMBAf8EAjAAMB0GA1Ud
        DgQWBBSAiuk4ZFCezKyfnQKXwUGc3DnCDTAfBgNVHSMEGDAWgBQULrMXt1hWy65Q
        CUDmH6+dixTCxjBVBggrBgEFBQcBAQRJMEcwIQYIKwYBBQUHMAGGFWh0dHA6Ly9y
        My5vLmxlbmNyLm9yZzAiBggrBgEFBQcwAoYWaHR0cDovL3IzLmkubGVuY3Iub3Jn
        LzCCARMGA1UdEQSCAQowggEGghUqLmRhcHAuc2lnbmFsd2lyZS5jb22CDyouZGFw
        cC5zd2lyZS5pb4IWKi5yZWxheS5zaWduYWx3aXJlLmNvbYIQKi5yZWxheS5zd2ly
        ZS5pb4IRKi5zaWduYWx3aXJlLmJsb2eCEiouc2lnbmFsd2lyZS5jbG91ZIIQKi5z
        aWduYWx3aXJlLmNvbYIWKi5zaWduYWx3aXJlLmNvbW11bml0eYIUKi5zaXAuc2ln
        bmFsd2lyZS5jb22CCiouc3dpcmUuaW+CD3NpZ25hbHdpcmUuYmxvZ4IOc2lnbmFs
        d2lyZS5jb22CFHNpZ25hbHdpcmUuY29tbXVuaXR5gghzd2lyZS5pbzBMBgNVHSAE
        RTBDMAgGBmeBDAECATA3BgsrBgEEAYLfEwEBATAoMCYGCCsGAQUFBwIBFhpodHRw
        Oi8vY3BzLmxldHNlbmNyeXB0Lm9yZzCCAQUGCisGAQQB1nkCBAIEgfYEgfMA8QB2
        AEHIyrHfIkZKEMahOglCh15OMYsbA+vrS8do8JBilgb2AAABg1GD8sMAAAQDAEcw
        RQIhAN4aEX2fDsM/yGwwCunbprThe1huRqEGBZCqXJw/1Au2AiAYZtP1BKUZNUJJ
        N0B++KSIEEjlNAbMsygYiTBqeIDMlgB3AEalVet1+pEgMLWiiWn0830RLEF0vv1J
        uIWr8vxw/m1HAAABg1GD8uQAAAQDAEgwRgIhAJWXKMSNWTAYprMvcz1HvYni7kMm
        7G9w8tnUGAvOsLQkAiEAiCE8z3ngUHlkiUYPCCtd+2f149B1sxGtBw4lrnJWQaMw
        DQYJKoZIhvcNAQELBQADggEBACP1kzPjhm+ZZLSdPYf+qxiQLUCtTvtjw1Tyxeg9
        pBSwOOiiyP+Zu7J2ff+TI/UMxFc6G6MF5d69SA0n5wVTf7m4Xd34O5JhrL1UchWE
        fRnvORPv5YTDlgInDO++C4Ye+gufWsYm0LC9fv+h2UANYx+P+P19Zwv1VbpVPolW
        hRbreI8Cwo6jSeB/xq1G7YC36uspy9ocCkrIpdqQ8BT+0edqnoz7Js0X9Jkx58RP
        B22Q4gD/d+sJDzGuieJqLOow/+8CpqbpUeDfADMAwqPSJSEZTpBy+I3/Bocae5q0
        /pwGG1jYhciI8tqg5gJM9Ow1yYhlfd7e1yLhGZszN8fMYWk=
        -----END CERTIFICATE-----
        """

    /// Issuer `R3` (notBefore 2020-09-30T19:52:04Z, notAfter 2021-09-29T19:52:04Z). Source: letsencrypt/website,
    /// `static/certs/lets-encrypt-r3-cross-signed.pem` @ cdfa969f9c09c3584741c655b20ccde9524ddc4a
    /// (https://letsencrypt.org/certs/lets-encrypt-r3-cross-signed.pem). This is the IdenTrust cross-signed R3. The
    /// ISRG-Root-X1-signed R3 has the same subject and SubjectPublicKeyInfo, so either gives the same issuer_key_hash.
    /// The leaf's signature verifies under this key.
    static let signalwireComIssuerPEM = """
        -----BEGIN CERTIFICATE-----
        MIIERjCCAy6gAwIBAgIQQAF04JJlL8YLqYHff02SmDANBgkqhkiG9w0BAQsFADA/
        MSQwIgYDVQQKExtEaWdpdGFsIFNpZ25hdHVyZSBUcnVzdCBDby4xFzAVBgNVBAMT
        DkRTVCBSb290IENBIFgzMB4XDTIwMDkzMDE5NTIwNFoXDTIxMDkyOTE5NTIwNFow
        MjELMAkGA1UEBhMCVVMxFjAUBgNVBAoTDUxldCdzIEVuY3J5cHQxCzAJBgNVBAMT
        AlIzMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuwIVKMz2oJTTDxLs
        jVWSw/iC8ZmmekKIp10mqrUrucVMsa+Oa/l1yKPXD0eUFFU1V4yeqKI5GfWCPEKp
        Tm71O8Mu243AsFzzWTjn7c9p8FoLG77AlCQlh/o3cbMT5xys4Zvv2+Q7RVJFlqnB
        U840yFLuta7tj95gcOKlVKu2bQ6XpUA0ayvTvGbrZjR8+muLj1cpmfgwF126cm/7
        gcWt0oZYPRfH5wm78Sv3htzB2nFd1EbjzK0lwYi8YGd1ZrPxGPeiXOZT/zqItkel
        /xMY6pgJdz+dU/nPAeX1pnAXFK9jpP+Zs5Od3FOnBv5IhR2haa4ldbsTzFID9e1R
        oYvbFQIDAQABo4IBSTCCAUUwEgYDVR0TAQH/BAgwBgEB/wIBADAOBgNVHQ8BAf8E
        BAMCAYYwSwYIKwYBBQUHAQEEPzA9MDsGCCsGAQUFBzAChi9odHRwOi8vYXBwcy5p
        ZGVudHJ1c3QuY29tL3Jvb3RzL2RzdHJvb3RjYXgzLnA3YzAfBgNVHSMEGDAWgBTE
        p7Gkeyxx+tvhS5B1/8QVYIWJEDBUBgNVHSAETTBLMAgGBmeBDAECATA/BgsrBgEE
        AYLfEwEBATAwMC4GCCsGAQUFBwIBFiJodHRwOi8vY3BzLnJvb3QteDEubGV0c2Vu
        Y3J5cHQub3JnMDwGA1UdHwQ1MDMwMaAvoC2GK2h0dHA6Ly9jcmwuaWRlbnRydXN0
        LmNvbS9EU1RST09UQ0FYM0NSTC5jcmwwHQYDVR0OBBYEFBQusxe3WFbLrlAJQOYf
        r52LFMLGMA0GCSqGSIb3DQEBCwUAA4IBAQBUzFbuB1A60ju3oKuN27O7YoaHnTHT
        PKbzYC/ymnVdsfH8QiJ2CXlZMxwK/jja2ouRZZUBkAGJlRkdssG3/uDdyynHD5OL
        Hs8NaOuyMxc77WfaU08g2tHDXjWjElmMy2MuvoOjEbS6ubUFsQ6fdu1bTJeBoA12
        qgmCu9jmRoB022DLSEORmj5sETRGZSSaKUNyPJ8kfoXqFAESH7VFbYZ9WZ/uOO4/
        KGp4u9HTsX87xKIkHxGDdInewOweAhceKUBf+MZLJiamCRk8I6uaJe403eZyw9MD
        WxydCOeVu1jITlSlm/vBLQadoEif7tElTI1rMoJ0+9FIB9TJ8E/KIvcF
        -----END CERTIFICATE-----
        """

    /// issuer_key_hash for the precert_entry: base64(SHA-256(DER SubjectPublicKeyInfo of `signalwireComIssuerPEM`)),
    /// computed with Python `cryptography` and `hashlib` (see /tmp/ctkat/verify.py).
    static let signalwireComIssuerKeyHashBase64 = "jQJTbIh0grw0/1TkHSumWb+Fs0Ggogr621gT3PvPKG0="

    /// The SCTs embedded in `signalwireComLeafPEM`, in list order, read from its SCT list extension (OID
    /// 1.3.6.1.4.1.11129.2.4.2). All are v1, have no extensions, use SHA-256, and verify under the matching key in
    /// `logs`: Cloudflare 'Nimbus2022' Log at 1663519945411; Google 'Xenon2022' log at 1663519945444.
    static let signalwireComSCTs: [CTKnownAnswerSCT] = [
        CTKnownAnswerSCT(
            logIDBase64: "QcjKsd8iRkoQxqE6CUKHXk4xixsD6+tLx2jwkGKWBvY=",
            timestampMilliseconds: 1_663_519_945_411
        ),
        CTKnownAnswerSCT(
            logIDBase64: "RqVV63X6kSAwtaKJafTzfREsQXS+/Um4havy/HD+bUc=",
            timestampMilliseconds: 1_663_519_945_444
        ),
    ]
}
