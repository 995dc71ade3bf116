
/// The built-in lists `fake` and the `name` pseudonym format draw from: common
/// given names and surnames of many languages, and the words of "lorem ipsum",
/// which no real record is made of.
enum FakeData {
    static let firstNames: [[UInt8]] = [
        "Ada", "Adam", "Aiko", "Alba", "Alice", "Amara", "Anna", "Arjun", "Astrid", "Aya",
        "Ben", "Bianca", "Bruno", "Carla", "Carlos", "Chen", "Chloe", "Dario", "Diego", "Elena",
        "Elif", "Emil", "Emma", "Farah", "Felix", "Freya", "Gabriel", "Greta", "Hana", "Hugo",
        "Ines", "Ivan", "Jonas", "Julia", "Kai", "Karim", "Lara", "Leo", "Lina", "Luca",
        "Maja", "Marco", "Maria", "Mateo", "Mei", "Mila", "Nadia", "Nils", "Nora", "Omar",
        "Oscar", "Paula", "Pedro", "Priya", "Rafael", "Rosa", "Sami", "Sara", "Sofia", "Tariq",
        "Theo", "Uma", "Vera", "Victor", "Wen", "Yara", "Yusuf", "Zara", "Zoe", "Noah",
    ].map { Array($0.utf8) }

    static let lastNames: [[UInt8]] = [
        "Almeida", "Andersen", "Bauer", "Becker", "Bianchi", "Costa", "Dubois", "Eriksson", "Fischer", "Fontaine",
        "Garcia", "Haddad", "Hansen", "Ito", "Jansen", "Kato", "Keller", "Kowalski", "Larsen", "Laurent",
        "Lehmann", "Lopez", "Mancini", "Martin", "Moreau", "Moretti", "Nakamura", "Novak", "Okafor", "Olsen",
        "Petrov", "Quinn", "Ricci", "Romano", "Rossi", "Sato", "Schmidt", "Silva", "Sousa", "Suzuki",
        "Tanaka", "Torres", "Varga", "Vogel", "Wagner", "Weber", "Yilmaz", "Zhang", "Novotny", "Horvat",
    ].map { Array($0.utf8) }

    static let words: [[UInt8]] = [
        "lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do",
        "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim",
        "ad", "minim", "veniam", "quis", "nostrud", "exercitation", "ullamco", "laboris", "nisi", "aliquip",
        "ex", "ea", "commodo", "consequat", "duis", "aute", "irure", "in", "reprehenderit", "voluptate",
        "velit", "esse", "cillum", "fugiat", "nulla", "pariatur", "excepteur", "sint", "occaecat", "cupidatat",
        "non", "proident", "sunt", "culpa", "qui", "officia", "deserunt", "mollit", "anim", "id",
        "est", "laborum", "curabitur", "pretium", "tincidunt", "lacus", "nunc", "gravida", "semper", "viverra",
        "mauris", "aliquam", "vitae", "turpis", "massa", "vestibulum", "morbi", "blandit", "cursus", "risus",
    ].map { Array($0.utf8) }
}
