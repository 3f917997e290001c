import { resolve } from "node:path";
import { ARCHIVE_PG_DUMP, backupDataDir, backupSharedStorage } from "../backup/backup.ts";
import { restoreDataDir, RestoreRefused } from "../backup/restore.ts";
import { DATA_DIR_OPTION, DATABASE_URL_OPTION, STORAGE_DIR_OPTION, storageDirOf } from "../config-options.ts";
import type { Command } from "./admin.ts";
import { CommandFailed } from "./options.ts";

export const backupCommand: Command = {
  usage: "verbatim backup --to FILE [--data-dir ./data] [--storage-dir DIR] [--database-url URL]",
  summary:
    "Write a consistent backup of the data dir (database snapshot, recordings, documents, signing key) to FILE, a gzip tar readable only by its owner. Works while the server runs. With --database-url (PostgreSQL): the storage dir (recordings, documents, signing key) and, when pg_dump is on PATH, the database in pg_dump's custom format (" +
    ARCHIVE_PG_DUMP +
    ", for pg_restore); without pg_dump, back the database up with pg_dump yourself.",
  options: [
    DATA_DIR_OPTION,
    STORAGE_DIR_OPTION,
    DATABASE_URL_OPTION,
    { name: "to", type: "string", required: true, help: "The backup file to write (e.g. verbatim-2026-11-24.tar.gz)." },
  ],
  async run(values, out) {
    const target = resolve(values.to as string);
    const databaseUrl = values["database-url"] as string | undefined;
    if (databaseUrl) {
      try {
        const { bytes, files, database } = await backupSharedStorage(resolve(storageDirOf(values)), target, { url: databaseUrl, pgDump: Bun.which("pg_dump") });
        out(`backup written: ${target} (${files} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB)`);
        // Never the URL: it holds the database password.
        if (database.dumped) out(`the database: dumped by ${database.pgDump} into ${ARCHIVE_PG_DUMP} (pg_dump's custom format; restore it with pg_restore)`);
        else out(`the database is NOT in this backup (${database.why}): back it up with pg_dump --format=custom, e.g. pg_dump -Fc -f verbatim.pgdump "$VERBATIM_DATABASE_URL"`);
      } catch (error) {
        throw new CommandFailed(oneLine((error as Error).message));
      }
      return;
    }
    try {
      const { bytes, files } = await backupDataDir(resolve(values["data-dir"] as string), target, resolve(storageDirOf(values)));
      out(`backup written: ${target} (${files} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB)`);
    } catch (error) {
      throw new CommandFailed((error as Error).message);
    }
  },
};

export const restoreCommand: Command = {
  usage: "verbatim restore --from FILE --data-dir DIR [--force]",
  summary:
    "Restore a backup into DIR (an empty or new folder; --force replaces what DIR holds), all or nothing: the archive is extracted and checked (entries, modes, the database's integrity, schema and migrations) before it replaces anything; refused while a server runs on DIR. Start the server on DIR afterwards.",
  options: [
    { ...DATA_DIR_OPTION, default: undefined, required: true },
    { name: "from", type: "string", required: true, help: "The backup file." },
    { name: "force", type: "bool", help: "Replace the contents of a non-empty DIR (never while a server runs on it)." },
  ],
  async run(values, out) {
    const dataDir = resolve(values["data-dir"] as string);
    try {
      const { entries } = await restoreDataDir(resolve(values.from as string), dataDir, { force: values.force === true });
      out(`restored ${entries} entries into ${dataDir}; start the server with --data-dir ${dataDir}`);
    } catch (error) {
      // One line, never a stack: a refusal says why; anything else (a full disk, a permission) says what failed.
      if (error instanceof RestoreRefused) throw new CommandFailed(error.message);
      throw new CommandFailed(`restore failed, ${dataDir} unchanged: ${oneLine((error as Error).message)}`);
    }
  },
};

function oneLine(text: string): string {
  return text.split("\n")[0]!.trim();
}
