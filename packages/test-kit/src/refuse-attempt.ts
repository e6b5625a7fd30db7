// Test support: a store whose database itself refuses one attempt — a trigger on `attempts` that
// raises for one attempt id (SQLite RAISE(ABORT), PostgreSQL RAISE EXCEPTION) — the real refusal of
// a write that ingest must survive: its batch written again bundle by bundle, only that bundle lost.
import Database from 'better-sqlite3';
import pg from 'pg';

/** Installs the trigger in an existing store (`sqlite:PATH` or `postgres://…`); its message says `poisoned`. */
export async function refuseAttempt(url: string, attemptId: string): Promise<void> {
  const quoted = `'${attemptId.replaceAll("'", "''")}'`;
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { fileMustExist: true });
    try {
      db.exec(`CREATE TRIGGER poison BEFORE INSERT ON attempts WHEN NEW.attempt_id = ${quoted}
        BEGIN SELECT RAISE(ABORT, 'poisoned'); END`);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.attempt_id = ${quoted} THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER poison BEFORE INSERT ON attempts FOR EACH ROW EXECUTE FUNCTION poison();`);
  } finally {
    await client.end();
  }
}
