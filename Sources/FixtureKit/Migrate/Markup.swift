/// The text escapes of the markup reports, one per format: every text the JUnit
/// file holds goes through ``xml``, every text of the HTML page through ``html``,
/// and no other code writes an entity. (JSON goes through Foundation's encoder.)
///
/// Each makes `text` safe in an element or a quoted attribute of its format:
///
/// | text                                 | `xml` (JUnit)                            | `html`                                  |
/// |--------------------------------------|------------------------------------------|-----------------------------------------|
/// | `&` `<` `>` `"`                      | `&amp;` `&lt;` `&gt;` `&quot;`           | the same                                |
/// | `'`                                  | `&apos;`, one of XML's five entities     | `&#39;`: HTML 4 has no `&apos;`         |
/// | line feed, tab                       | `&#10;` `&#9;`: an attribute keeps them only so | as they are (a `<pre>` shows them) |
/// | carriage return                      | `&#13;`                                  | U+FFFD                                  |
/// | other C0 controls, U+FFFE, U+FFFF    | U+FFFD: XML 1.0 cannot hold them         | U+FFFD                                  |
/// | DEL and the C1 controls U+0080–U+009F | as they are: XML 1.0 holds them         | U+FFFD (HTML calls them parse errors)   |
enum Markup {
    /// XML 1.0, for the JUnit file.
    case xml
    /// HTML, for the self-contained page.
    case html

    func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += self == .xml ? "&apos;" : "&#39;"
            case "\n", "\t", "\r":
                if self == .xml {
                    result += "&#\(scalar.value);"
                } else {
                    result.unicodeScalars.append(scalar == "\r" ? "\u{FFFD}" : scalar)
                }
            default:
                let control = scalar.value < 0x20 || (self == .html && (0x7F...0x9F).contains(scalar.value))
                if control || (0xFFFE...0xFFFF).contains(scalar.value) {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
