import Foundation
import Testing
@testable import FixtureKitCrypto
@testable import FixtureKitModels
@testable import FixtureKitSystem

/// The SHA256SUMS format, both ways: what other tools write is read, what is
/// written reads back (Sums/ChecksumsTests compares the files with sha256sum and shasum).
@Suite struct SHA256SumsTests {
    @Test func digestOfKnownInputs() throws {
        #expect(try SHA256.hash(Array("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try SHA256.hash([]).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func readsCommentsCRLFBinaryFlagUpperCaseAndBlankLines() throws {
        let digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let text = "# written by hand\r\n\(digest.uppercased()) *a\r\n\r\n\(digest)  b\n\(digest) c\n\\\(digest)  d\\\\e\nSHA256 (f) = \(digest)\n  \(digest)  g"
        let sums = SHA256Sums(parsing: Array(text.utf8))
        #expect(sums.problems == [])
        #expect(sums.entries.map(\.path.description) == ["a", "b", "c", "d\\e", "f", "g"])
        #expect(sums.entries.map(\.line) == [2, 4, 5, 6, 7, 8])
        #expect(Set(sums.entries.map(\.digest.hex)) == [digest])
    }

    @Test func reportsMalformedLinesByNumber() {
        let digest = String(repeating: "ab", count: 32)
        let lines = [
            "\(digest)  good",
            "not a checksum line",
            "\(digest.dropLast())  short-digest",
            "\(digest)",
            "\\\(digest)  bad\\escape",
            "SHA256 (x) = 1234",
            "SHA512 (x) = \(digest)",
            "\(digest)  ../escape",
            "\(digest)  /etc/passwd",
            "\(digest)  good",
            "\(digest)  a/",
        ]
        let sums = SHA256Sums(parsing: Array(lines.joined(separator: "\n").utf8))
        #expect(sums.entries.map(\.path.description) == ["good"])
        #expect(sums.problems.map(\.description) == [
            "line 2: not a SHA-256 checksum line (expected 64 hexadecimal digits, two spaces and a file name)",
            "line 3: not a SHA-256 checksum line (expected 64 hexadecimal digits, two spaces and a file name)",
            "line 4: no file name after the checksum",
            "line 5: invalid escape in the file name (only \\\\, \\n and \\r are allowed)",
            "line 6: not a SHA-256 digest after `=` (expected 64 hexadecimal digits)",
            "line 7: not a SHA-256 checksum line (expected 64 hexadecimal digits, two spaces and a file name)",
            "line 8: \"../escape\" is not a path inside the folder",
            "line 9: \"/etc/passwd\" is not a path inside the folder",
            "line 10: \"good\" is listed again (first on line 1)",
            "line 11: \"a/\" is not a path inside the folder",
        ])
    }

    /// The names `find . -type f -exec sha256sum {} +` writes, and every other
    /// spelling `sha256sum -c` opens as the same file: read as that file's plain path.
    @Test(arguments: [
        ("./a.txt", "a.txt"), ("././a.txt", "a.txt"), (".//a.txt", "a.txt"), ("sub/./b", "sub/b"),
        ("./sub//b", "sub/b"), ("sub///./c/d", "sub/c/d"), ("\\./x\\ny", "x\ny"), ("./.hidden", ".hidden"), ("./...", "..."),
    ])
    func namesWithDotComponentsAreTheFileSha256sumChecks(written: String, plain: String) {
        let digest = String(repeating: "ab", count: 32)
        let escaped = written.hasPrefix("\\")
        let line = escaped ? "\\" + digest + "  " + written.dropFirst() : digest + "  " + written
        for form in [line, "SHA256 (\(written)) = \(digest)"] where !escaped || form == line {
            let sums = SHA256Sums(parsing: Array(form.utf8))
            #expect(sums.problems == [], "\(form)")
            #expect(sums.entries.map(\.path.description) == [plain], "\(form)")
        }
    }

    @Test func namesThatAreNotAFileInsideTheFolderAreRefusedAsWritten() {
        let digest = String(repeating: "ab", count: 32)
        let names = ["./", ".", "a/.", "./../x", "sub/../a", "/./a", "./a", "a"]
        let sums = SHA256Sums(parsing: Array(names.map { "\(digest)  \($0)" }.joined(separator: "\n").utf8))
        #expect(sums.entries.map(\.path.description) == ["a"])
        #expect(sums.problems.map(\.description) == [
            "line 1: \"./\" is not a path inside the folder",
            "line 2: \".\" is not a path inside the folder",
            "line 3: \"a/.\" is not a path inside the folder",
            "line 4: \"./../x\" is not a path inside the folder",
            "line 5: \"sub/../a\" is not a path inside the folder",
            "line 6: \"/./a\" is not a path inside the folder",
            "line 8: \"a\" is listed again (first on line 7)",
        ])
    }

    @Test func escapingRoundTrips() {
        let digest = SHA256Digest(hex: String(repeating: "0f", count: 32))!
        let names = ["a\\b", "x\ny", "c\rr", "\\\n\r\\", "plain"]
        let sums = SHA256Sums(entries: names.map { SHA256SumsEntry(path: RelativePath($0), digest: digest) })
        let reread = SHA256Sums(parsing: sums.rendered())
        #expect(reread.problems == [])
        #expect(reread.entries.map(\.path.description) == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test func sortsBytewiseNotByUnicode() {
        let digest = SHA256Digest(hex: String(repeating: "00", count: 32))!
        // "é" precomposed (C3 A9) and decomposed (65 CC 81) are two files; "Z" (5A) sorts before "a" (61).
        let names = ["\u{E9}", "e\u{301}", "a", "Z", "_"]
        let rendered = String(decoding: SHA256Sums(entries: names.map { SHA256SumsEntry(path: RelativePath($0), digest: digest) }).rendered(), as: UTF8.self)
        let order = rendered.split(separator: "\n").map { $0.dropFirst(66) }
        #expect(order.map { Array($0.utf8) } == [[0x5A], [0x5F], [0x61], [0x65, 0xCC, 0x81], [0xC3, 0xA9]])
    }
}
