-- Text for the generated rows, in temporary tables of the connection that fills a
-- store: a vocabulary, 4,096 sentences of 6 to 18 of its words, and 4,096
-- paragraphs of 1 to 8 sentences. Every pick is a function of the row's number
-- (no random()), so the same SQL always builds the same store.
CREATE TEMP TABLE words (id INTEGER PRIMARY KEY, w TEXT NOT NULL);
INSERT INTO temp.words (id, w)
SELECT key, value FROM json_each('["order","invoice","delivery","customer","account","payment","refund","shipment",
  "parcel","warehouse","address","street","city","country","region","postal","code","phone","email","message",
  "subject","reply","thanks","please","update","status","pending","shipped","delivered","returned","cancelled",
  "review","rating","product","item","quantity","price","discount","coupon","total","tax","currency","euro",
  "dollar","monday","tuesday","wednesday","thursday","friday","morning","evening","week","month","year","today",
  "the","a","an","and","or","but","with","without","from","to","for","of","in","on","at","by","about","after",
  "before","is","are","was","were","be","been","will","would","can","could","should","may","might","must",
  "have","has","had","new","old","small","large","blue","red","green","black","white","fast","slow","early",
  "late","happy","sorry"]');
CREATE TEMP TABLE sentences (id INTEGER PRIMARY KEY, s TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4095),
     k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 17),
     picks(i, j, w) AS (
       SELECT i, j, (i * 7919 + j * 104729 + i * j * 31 + (i / 7) * 13) % (SELECT count(*) FROM temp.words)
       FROM n, k WHERE j < 6 + (i * 37) % 13),
     joined(i, t) AS (
       SELECT i, group_concat(w, ' ') FROM (SELECT picks.i, picks.j, words.w FROM picks JOIN temp.words ON words.id = picks.w ORDER BY picks.i, picks.j)
       GROUP BY i)
INSERT INTO temp.sentences (id, s) SELECT i, upper(substr(t, 1, 1)) || substr(t, 2) || '.' FROM joined;
CREATE TEMP TABLE paragraphs (id INTEGER PRIMARY KEY, p TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 4095),
     k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 7)
INSERT INTO temp.paragraphs (id, p)
SELECT i, group_concat(s, ' ') FROM (
  SELECT n.i, k.j, sentences.s FROM n, k JOIN temp.sentences ON sentences.id = (n.i * 2654435 + k.j * 40503) % 4096
  WHERE k.j <= (n.i * 97) % 8 ORDER BY n.i, k.j)
GROUP BY i;
