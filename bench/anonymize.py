#!/usr/bin/env python3
"""The anonymizer a user would write without fixturekit: Python's sqlite3 and hmac.

    FIXTUREKIT_ANON_KEY=... bench/anonymize.py SOURCE OUTPUT

Copies SOURCE to OUTPUT, then rewrites the three columns the benchmark's rules
name, with the same strategies: `email` as a keyed pseudonym at example.invalid,
`name` as a fake name chosen by the keyed hash, `phone` masked but its last two
characters. The functions are registered with SQLite and run by one UPDATE, the
fastest way Python's sqlite3 offers (no row goes through Python twice); then
VACUUM and the rollback journal, as fixturekit leaves its output.
"""
import hashlib
import hmac
import os
import shutil
import sqlite3
import sys

FIRST = ["Ada", "Adam", "Aiko", "Alba", "Alice", "Amara", "Anna", "Arjun", "Astrid", "Aya",
         "Ben", "Bianca", "Bruno", "Carla", "Carlos", "Chen", "Chloe", "Dario", "Diego", "Elena"]
LAST = ["Almeida", "Andersen", "Bauer", "Becker", "Bianchi", "Costa", "Dubois", "Eriksson", "Fischer", "Fontaine",
        "Garcia", "Haddad", "Hansen", "Ito", "Jansen", "Kato", "Keller", "Kowalski", "Larsen", "Laurent"]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: anonymize.py SOURCE OUTPUT")
    source, output = sys.argv[1], sys.argv[2]
    key = os.environ["FIXTUREKIT_ANON_KEY"].encode()

    def pseudonym_email(value):
        if value is None:
            return None
        digest = hmac.new(key, b"email\0" + value.encode(), hashlib.sha256).hexdigest()
        return "user-" + digest[:12] + "@example.invalid"

    def fake_name(value):
        if value is None:
            return None
        digest = hmac.new(key, b"name\0" + value.encode(), hashlib.sha256).digest()
        return FIRST[digest[0] % len(FIRST)] + " " + LAST[digest[1] % len(LAST)]

    def mask(value):
        if value is None:
            return None
        keep = 2 if len(value) > 2 else 0
        return "*" * (len(value) - keep) + value[len(value) - keep:]

    shutil.copyfile(source, output)
    db = sqlite3.connect(output)
    db.create_function("pseudonym_email", 1, pseudonym_email, deterministic=True)
    db.create_function("fake_name", 1, fake_name, deterministic=True)
    db.create_function("mask", 1, mask, deterministic=True)
    db.execute("PRAGMA secure_delete = ON")
    db.execute("UPDATE users SET email = pseudonym_email(email), name = fake_name(name), phone = mask(phone)")
    db.commit()
    db.execute("VACUUM")
    db.execute("PRAGMA journal_mode = DELETE")
    db.close()


if __name__ == "__main__":
    main()
