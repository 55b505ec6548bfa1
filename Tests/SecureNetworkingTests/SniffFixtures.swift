import Foundation

/// Real minimal files, made once with Pillow 1x1 images (`Image.new("RGB", (1, 1))` saved as
/// each format) and checked with `file(1)`; committed as Base64 so the tests need no resources.
/// `Scripts/make-sniff-fixtures.py` makes them again (another Pillow version writes other bytes).
enum SniffFixtures {
    static let jpeg = Data(
        base64Encoded: """
            /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1R
            V19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj
            Y2NjY2NjY2NjY2NjY2P/wAARCAABAAEDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAA
            AgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6
            Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXG
            x8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREA
            AgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5
            OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPE
            xcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDHooorhPqD/9k=
            """,
        options: .ignoreUnknownCharacters
    )!
    static let png = Data(
        base64Encoded: """
            iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGM4IScHAAK2AQU0pnWqAAAAAElFTkSuQmCC
            """,
        options: .ignoreUnknownCharacters
    )!
    static let gif = Data(
        base64Encoded: """
            R0lGODdhAQABAIEAAMgeHgAAAAAAAAAAACwAAAAAAQABAAAIBAABBAQAOw==
            """,
        options: .ignoreUnknownCharacters
    )!
    static let webp = Data(
        base64Encoded: """
            UklGRh4AAABXRUJQVlA4TBEAAAAvAAAAAAdQjyLXo/+BiOh/AAA=
            """,
        options: .ignoreUnknownCharacters
    )!
    static let pdf = Data(
        base64Encoded: """
            JVBERi0xLjQKJSBjcmVhdGVkIGJ5IFBpbGxvdyBQREYgZHJpdmVyCjMgMCBvYmo8PAovVHlwZSAvQ2F0YWxvZwovUGFnZXMg
            NCAwIFIKPj5lbmRvYmoKNCAwIG9iajw8Ci9UeXBlIC9QYWdlcwovQ291bnQgMQovS2lkcyBbIDEgMCBSIF0KPj5lbmRvYmoK
            NSAwIG9iajw8Ci9UeXBlIC9YT2JqZWN0Ci9TdWJ0eXBlIC9JbWFnZQovV2lkdGggMQovSGVpZ2h0IDEKL0ZpbHRlciAvRENU
            RGVjb2RlCi9CaXRzUGVyQ29tcG9uZW50IDgKL0NvbG9yU3BhY2UgL0RldmljZVJHQgovTGVuZ3RoIDYzMwo+PnN0cmVhbQr/
            2P/gABBKRklGAAEBAAABAAEAAP/bAEMACAYGBwYFCAcHBwkJCAoMFA0MCwsMGRITDxQdGh8eHRocHCAkLicgIiwjHBwoNyks
            MDE0NDQfJzk9ODI8LjM0Mv/bAEMBCQkJDAsMGA0NGDIhHCEyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIy
            MjIyMjIyMjIyMjIyMv/AABEIAAEAAQMBIgACEQEDEQH/xAAfAAABBQEBAQEBAQAAAAAAAAAAAQIDBAUGBwgJCgv/xAC1EAAC
            AQMDAgQDBQUEBAAAAX0BAgMABBEFEiExQQYTUWEHInEUMoGRoQgjQrHBFVLR8CQzYnKCCQoWFxgZGiUmJygpKjQ1Njc4OTpD
            REVGR0hJSlNUVVZXWFlaY2RlZmdoaWpzdHV2d3h5eoOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbH
            yMnK0tPU1dbX2Nna4eLj5OXm5+jp6vHy8/T19vf4+fr/xAAfAQADAQEBAQEBAQEBAAAAAAAAAQIDBAUGBwgJCgv/xAC1EQAC
            AQIEBAMEBwUEBAABAncAAQIDEQQFITEGEkFRB2FxEyIygQgUQpGhscEJIzNS8BVictEKFiQ04SXxFxgZGiYnKCkqNTY3ODk6
            Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqCg4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TF
            xsfIycrS09TV1tfY2dri4+Tl5ufo6ery8/T19vf4+fr/2gAMAwEAAhEDEQA/AOQooorxT9MP/9kKZW5kc3RyZWFtCmVuZG9i
            agoxIDAgb2JqPDwKL1Jlc291cmNlcyA8PAovUHJvY1NldCBbIC9QREYgL0ltYWdlQyBdCi9YT2JqZWN0IDw8Ci9pbWFnZSA1
            IDAgUgo+Pgo+PgovTWVkaWFCb3ggWyAwIDAgMS4wIDEuMCBdCi9Db250ZW50cyAyIDAgUgovVHlwZSAvUGFnZQovUGFyZW50
            IDQgMCBSCj4+ZW5kb2JqCjIgMCBvYmo8PAovTGVuZ3RoIDQzCj4+c3RyZWFtCnEgMS4wMDAwMDAgMCAwIDEuMDAwMDAwIDAg
            MCBjbSAvaW1hZ2UgRG8gUQoKZW5kc3RyZWFtCmVuZG9iago2IDAgb2JqPDwKL0NyZWF0aW9uRGF0ZSAoRDoyMDI2MTEyMjEx
            MDcxNlopCi9Nb2REYXRlIChEOjIwMjYxMTIyMTEwNzE2WikKPj5lbmRvYmoKeHJlZgowIDcKMDAwMDAwMDAwMCA2NTUzNiBm
            IAowMDAwMDAwOTM4IDAwMDAwIG4gCjAwMDAwMDEwOTYgMDAwMDAgbiAKMDAwMDAwMDA0MCAwMDAwMCBuIAowMDAwMDAwMDg3
            IDAwMDAwIG4gCjAwMDAwMDAxNDQgMDAwMDAgbiAKMDAwMDAwMTE4NyAwMDAwMCBuIAp0cmFpbGVyCjw8Ci9Sb290IDMgMCBS
            Ci9TaXplIDcKL0luZm8gNiAwIFIKPj4Kc3RhcnR4cmVmCjEyNjkKJSVFT0Y=
            """,
        options: .ignoreUnknownCharacters
    )!
}
