/**
 * The PostgreSQL schema, as versioned migrations: `PG_MIGRATIONS[k]` takes the schema from version k to
 * k + 1. `migrate` applies the missing ones in one transaction under a transaction-level advisory lock,
 * so hosts starting at once migrate once, and records each version in `<schema>.migrations`.
 *
 * A log is stored as its lines, exactly as the folder store writes them (canonical JSON with the `prev`
 * hash of the line before), one row per line: the hash chain is kept and checked on load by the same
 * parser, and export to a folder is a byte-for-byte copy. Since version 2 each row also carries its
 * index (hash, prev, item id, parent), so a history opens without reading item bodies.
 */
import type pg from 'pg';

export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE conversations (
     id TEXT PRIMARY KEY,
     created TEXT NOT NULL,
     forked_from_conversation TEXT,
     forked_from_agent TEXT,
     forked_from_tip TEXT
   );
   CREATE INDEX conversations_forked_from ON conversations (forked_from_conversation);
   CREATE TABLE histories (
     conversation TEXT NOT NULL REFERENCES conversations (id),
     agent TEXT NOT NULL,
     created TEXT NOT NULL,
     tip TEXT,
     turn INTEGER NOT NULL,
     items INTEGER NOT NULL,
     lines INTEGER NOT NULL,
     head TEXT NOT NULL,
     PRIMARY KEY (conversation, agent)
   );
   CREATE TABLE entries (
     conversation TEXT NOT NULL,
     agent TEXT NOT NULL,
     line INTEGER NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (conversation, agent, line),
     FOREIGN KEY (conversation, agent) REFERENCES histories (conversation, agent)
   );
   CREATE TABLE checkpoints (
     conversation TEXT NOT NULL,
     agent TEXT NOT NULL,
     label TEXT NOT NULL,
     at TEXT,
     turn INTEGER NOT NULL,
     time TEXT NOT NULL,
     files TEXT NOT NULL,
     PRIMARY KEY (conversation, agent, label)
   );
   CREATE TABLE blobs (
     hash TEXT PRIMARY KEY,
     bytes BYTEA NOT NULL
   );`,
  // 2: the index of each line beside its body, so a history opens by reading the index and keeps at
  // most `retainBytes` of bodies (read back by primary key, checked against `hash`). `hash` is the
  // sha256 of the line's UTF-8 bytes, `prev` the hash the line carries (the chain is checked over the
  // index), `item` and `parent` the item's ids for item lines (NULL for other lines, which are always
  // read whole). Existing rows are indexed from their bodies; a body that is not JSON (damage) gets no
  // `item`, so it is read whole and reported by the parser as before. Bodies stay where they are:
  // PostgreSQL already keeps values over ~2 kB out of line (TOAST), so a scan of the index columns
  // does not read large bodies. (OFFSET 0 keeps the planner from copying the parse into each use of
  // `v`: every body is parsed once.)
  `CREATE FUNCTION pg_temp.glyphfold_json(t TEXT) RETURNS JSONB LANGUAGE plpgsql IMMUTABLE AS $$
   BEGIN
     RETURN t::jsonb;
   EXCEPTION WHEN others THEN
     RETURN NULL;
   END $$;
   ALTER TABLE entries ADD COLUMN hash TEXT, ADD COLUMN prev TEXT, ADD COLUMN item TEXT, ADD COLUMN parent TEXT;
   UPDATE entries SET (hash, prev, item, parent) = (
     SELECT encode(sha256(convert_to(body, 'UTF8')), 'hex'),
            CASE WHEN jsonb_typeof(v->'prev') = 'string' THEN v->>'prev' END,
            CASE WHEN v->>'t' = 'item' AND jsonb_typeof(v->'prev') = 'string'
                      AND jsonb_typeof(v->'item'->'id') = 'string'
                      AND jsonb_typeof(v->'item'->'parent') IN ('string', 'null')
                 THEN v->'item'->>'id' END,
            CASE WHEN v->>'t' = 'item' THEN v->'item'->>'parent' END
       FROM (SELECT pg_temp.glyphfold_json(body) AS v OFFSET 0) j);
   ALTER TABLE entries ALTER COLUMN hash SET NOT NULL;
   DROP FUNCTION pg_temp.glyphfold_json(TEXT);`,
];

/** Key of the transaction-level advisory lock that serialises migrations (any constant of our own). */
const MIGRATION_LOCK = 0x676c7966; // 'glyf'

/** `"name"`, for an identifier checked by `validateSchemaName`. */
export const quoteIdent = (name: string): string => `"${name}"`;

export function validateSchemaName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new RangeError(
      `PostgresStore: schema ${JSON.stringify(name)} is not allowed: expected 1-63 of a-z 0-9 _ (starting with a letter or _)`,
    );
  return name;
}

/** Brings `schema` to the newest version; returns the version found before. */
export async function migrate(client: pg.ClientBase, schema: string): Promise<number> {
  const s = quoteIdent(schema);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.migrations (version INTEGER PRIMARY KEY, applied TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number | null }>(
      `SELECT max(version) AS v FROM ${s}.migrations`,
    );
    const found = rows[0]?.v ?? 0;
    if (found > PG_MIGRATIONS.length)
      throw new Error(
        `PostgresStore: schema ${schema} is at version ${found}, newer than this code knows (${PG_MIGRATIONS.length}); upgrade glyphfold`,
      );
    await client.query(`SET LOCAL search_path TO ${s}`);
    for (let v = found; v < PG_MIGRATIONS.length; v++) {
      await client.query(PG_MIGRATIONS[v]!);
      await client.query(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [v + 1]);
    }
    await client.query('COMMIT');
    return found;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
