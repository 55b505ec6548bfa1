public import Foundation

/// A file type recognised from its bytes.
public struct SniffedType: Hashable, Sendable, CustomStringConvertible {
    /// The media type, such as `image/png`.
    public let mediaType: String
    /// File name extensions that declare this type.
    public let extensions: Set<String>

    /// JPEG: starts with `FF D8 FF`, ends with the `FF D9` end-of-image marker.
    public static let jpeg = SniffedType(mediaType: "image/jpeg", extensions: ["jpg", "jpeg"])
    /// PNG: the 8-byte signature, then an `IHDR` chunk.
    public static let png = SniffedType(mediaType: "image/png", extensions: ["png"])
    /// GIF: `GIF87a` or `GIF89a`, ending with the `;` trailer.
    public static let gif = SniffedType(mediaType: "image/gif", extensions: ["gif"])
    /// PDF: `%PDF-` and an `%%EOF` marker near the end.
    public static let pdf = SniffedType(mediaType: "application/pdf", extensions: ["pdf"])
    /// WebP: a `RIFF` container of form `WEBP` whose size matches the file.
    public static let webp = SniffedType(mediaType: "image/webp", extensions: ["webp"])

    /// All recognised types.
    public static let all: [SniffedType] = [.jpeg, .png, .gif, .pdf, .webp]

    /// The media type.
    public var description: String { self.mediaType }
}

/// Recognises uploads by their magic bytes (never by their name) and enforces a size cap.
public struct ContentSniffer: Sendable {
    /// The types accepted.
    public var allowed: Set<SniffedType>
    /// The largest upload accepted, in bytes. Default 10 MiB.
    public var maximumSize: Int

    /// Creates a sniffer.
    public init(allowed: Set<SniffedType> = Set(SniffedType.all), maximumSize: Int = 10 * 1024 * 1024) {
        self.allowed = allowed
        self.maximumSize = maximumSize
    }

    /// The type the bytes are, or nil when they are none of the recognised types.
    public static func detect(_ data: Data) -> SniffedType? {
        let bytes = [UInt8](data)
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]), bytes.count >= 4, bytes.suffix(2) == [0xFF, 0xD9] { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), starts(Array("IHDR".utf8), at: 12) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)), bytes.count >= 14, bytes.last == 0x3B {
            return .gif
        }
        if starts(Array("%PDF-".utf8)), Self.containsEOFMarker(bytes) { return .pdf }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8), bytes.count >= 12 {
            let size = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            if size + 8 == bytes.count || size + 9 == bytes.count { return .webp }
        }
        return nil
    }

    /// `%%EOF` within the last 1 KiB (PDF readers look there).
    private static func containsEOFMarker(_ bytes: [UInt8]) -> Bool {
        let tail = Array(bytes.suffix(1024))
        let marker = Array("%%EOF".utf8)
        guard tail.count >= marker.count else { return false }
        return (0...(tail.count - marker.count)).contains { Array(tail[$0..<$0 + marker.count]) == marker }
    }

    /// Checks an upload: size first, then its bytes, then that they match the declared name.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - fileName: the name it was picked with, whose extension must agree with the bytes.
    /// - Returns: the recognised type.
    /// - Throws: ``ValidationError/Code/tooLarge``, ``ValidationError/Code/unrecognisedContent``
    ///   (bytes of no allowed type), ``ValidationError/Code/contentTypeMismatch`` (an impostor:
    ///   `photo.png` holding a PDF).
    @discardableResult
    public func validate(_ data: Data, fileName: String? = nil) throws(ValidationError) -> SniffedType {
        guard data.count <= self.maximumSize else {
            throw ValidationError(.tooLarge, "the file is larger than \(self.maximumSize) bytes", fieldPath: "upload")
        }
        guard let type = Self.detect(data), self.allowed.contains(type) else {
            throw ValidationError(.unrecognisedContent, "the file is not of an allowed type", fieldPath: "upload")
        }
        if let fileName {
            let ext = (fileName as NSString).pathExtension.lowercased()
            guard type.extensions.contains(ext) else {
                throw ValidationError(
                    .contentTypeMismatch,
                    "the file's contents (\(type)) do not match its name's extension",
                    fieldPath: "upload"
                )
            }
        }
        return type
    }
}
