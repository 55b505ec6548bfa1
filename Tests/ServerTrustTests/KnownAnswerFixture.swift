enum KnownAnswer {
    /// A self-signed RSA-2048 certificate made with `openssl req -x509 -newkey rsa:2048`.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIDHzCCAgegAwIBAgIURk0glwxYIG1T0I6G/At8XkKIwxwwDQYJKoZIhvcNAQEL
        BQAwHzEdMBsGA1UEAwwUU2VjdXJlTmV0d29ya2luZyBLQVQwHhcNMjYxMTIyMDk1
        MjQ0WhcNMzYxMTE5MDk1MjQ0WjAfMR0wGwYDVQQDDBRTZWN1cmVOZXR3b3JraW5n
        IEtBVDCCASIwDQYJKoZIhvcNAQEBBQADggEPADCCAQoCggEBALwitX6wbgT/3tfJ
        NumbOCqM8zdUInAbmLMnyh4ImHbYvZOBbuI/1iXdWGThkIWh11QBLkG76byJVgjr
        VG6mAGr7OgD21NQI/SBE4+uHzM7faQo8uBG6xItDzfZTmPy/48sk86avwQd/9gF+
        IqTCe4DYHygTK/p3JZdyA9bTr4l1FaQlu6VdDBPtOelLNKgRZ9lgpa3SbtUPK1rm
        p2PajhnQ/rRsy1Fh+7DFCzUqhxdbgiJrEP9HRzgUerxkulyTtmMlMirqJsWwqWXg
        vyfz0kwfh9lmZzsgoee0Bb8LhFcAUX+rPnX8LP5YtOeMB4tYFl4fGi0Hh+23YyiF
        kQYGszcCAwEAAaNTMFEwHQYDVR0OBBYEFN4RjTPRN8z9DJJdz7zMQ4cGwqFvMB8G
        A1UdIwQYMBaAFN4RjTPRN8z9DJJdz7zMQ4cGwqFvMA8GA1UdEwEB/wQFMAMBAf8w
        DQYJKoZIhvcNAQELBQADggEBAHsr02B2n+mkT4BpzY28LxCj1/6WzVm+UzLXNRBP
        lbFHYOInqn0jrSaFiwr0GdElC0CRM7iHRNmIKQtOFOBFRQCflTZ5GX1THx7DggwR
        CFFvgEqT811YNJds4Oivm3aGFb/Tlnzk7dOlNFz7CTLiAbZ7lEYeZoTGC7Gf86Nr
        NDGGOg8bqKjsh1yuVqtnixfntqnjjNOb0VE0zHK07Aqvo+7IqH+SpDBtEol5KDn8
        msKW3bcVv7eJVPX4+vMlsFgoD/nAsZa54XgMcVgbV7EjZFFZzs+K7116YtbU30PV
        x5sG95Pp4VVZ8Pr95sPJsHzqWIltb3yfKTjAS1VnCcPiSf4=
        -----END CERTIFICATE-----
        """

    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    static let opensslPin = "FHIlyjJmzpRakl9VrKvq14L6Tvy6qpKo58jzEUPLqU8="
}
