// The PostgreSQL schema (src/*/pg-table.ts) must be the SQLite one (src/*/table.ts) in PostgreSQL's
// types: the stores query through table.ts on both dialects (db/conn.ts), so a column missing,
// renamed, nullable on one side only, or an index left out would break PostgreSQL alone.
import { describe, expect, test } from "bun:test";
import { is } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { Glob } from "bun";
import { join } from "node:path";

const SRC = join(import.meta.dir, "..");

async function tablesOf<T>(pattern: string, kind: new (...args: never[]) => T): Promise<Map<string, T>> {
  const tables = new Map<string, T>();
  for await (const file of new Glob(pattern).scan(SRC)) {
    for (const value of Object.values(await import(join(SRC, file)))) {
      if (is(value, kind as never)) tables.set((value as { [k: symbol]: string })[Symbol.for("drizzle:Name")]!, value as T);
    }
  }
  return tables;
}

const sqliteTables = await tablesOf("*/table.ts", SQLiteTable);
const pgTables = await tablesOf("*/pg-table.ts", PgTable);

/** Which PostgreSQL column type stands for each SQLite one (the values read back are the same: db/pg-conn.ts). */
const TYPE_TWINS: Record<string, string> = {
  SQLiteText: "PgText",
  SQLiteTextJson: "PgText",
  SQLiteInteger: "PgBigInt53",
  SQLiteBoolean: "PgBoolean",
  SQLiteReal: "PgDoublePrecision",
};

function columnsOf(config: { columns: { name: string; notNull: boolean; primary: boolean; hasDefault: boolean; columnType: string }[] }, twin: boolean) {
  return Object.fromEntries(
    config.columns.map((c) => [c.name, { notNull: c.notNull, primary: c.primary, hasDefault: c.hasDefault, type: twin ? (TYPE_TWINS[c.columnType] ?? c.columnType) : c.columnType }]),
  );
}

function indexesOf(config: { indexes: { config: { name?: string; unique: boolean; columns: unknown[] } }[] }) {
  return config.indexes
    .map((i) => ({ name: i.config.name, unique: i.config.unique, columns: i.config.columns.map((c) => (c as { name?: string }).name ?? "expression") }))
    .sort((a, b) => String(a.name).localeCompare(String(b.name)));
}

function foreignKeysOf(config: { foreignKeys: { reference(): { columns: { name: string }[]; foreignColumns: { name: string; table: object }[] }; onDelete?: string }[] }) {
  return config.foreignKeys
    .map((fk) => {
      const ref = fk.reference();
      const table = (ref.foreignColumns[0]!.table as { [k: symbol]: string })[Symbol.for("drizzle:Name")];
      return `${ref.columns.map((c) => c.name).join(",")} -> ${table}(${ref.foreignColumns.map((c) => c.name).join(",")}) on delete ${fk.onDelete ?? "no action"}`;
    })
    .sort();
}

test("both dialects declare the same tables", () => {
  expect(sqliteTables.size).toBeGreaterThan(15);
  expect([...pgTables.keys()].sort()).toEqual([...sqliteTables.keys()].sort());
});

describe.each([...sqliteTables.keys()].sort())("table %s", (name) => {
  const lite = sqliteConfig(sqliteTables.get(name)! as never);
  const pg = pgConfig(pgTables.get(name)! as never);

  test("same columns, types, nullability, defaults and primary keys", () => {
    expect(columnsOf(pg as never, false)).toEqual(columnsOf(lite as never, true));
    expect(pg.primaryKeys.map((k) => k.columns.map((c) => c.name))).toEqual(lite.primaryKeys.map((k) => k.columns.map((c) => c.name)));
  });

  test("same indexes (names, columns, uniqueness)", () => {
    expect(indexesOf(pg as never)).toEqual(indexesOf(lite as never));
  });

  test("same foreign keys", () => {
    expect(foreignKeysOf(pg as never)).toEqual(foreignKeysOf(lite as never));
  });
});
