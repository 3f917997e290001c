import { expect, test } from "bun:test";
import { entryKey, entryProblem } from "./archive-entries.ts";

test("a backup's own entries pass: the database, its folders and their files, the root as ./", () => {
  for (const [path, type] of [
    ["verbatim.db", "File"],
    ["./verbatim.db", "File"],
    ["./", "Directory"],
    ["oauth/", "Directory"],
    ["oauth/signing-key.jwk.json", "File"],
    ["meetings/", "Directory"],
    ["meetings/0b0c/recording", "File"],
    ["meetings/0b0c/documents/", "Directory"],
  ] as const) {
    expect({ path, problem: entryProblem(path, type, 0o600) }).toEqual({ path, problem: undefined });
  }
  expect(entryKey("./meetings//a/")).toBe("meetings/a");
});

test("anything else is refused, with why", () => {
  const cases: [path: string, type: string, mode: number, why: string][] = [
    ["/etc/cron.d/x", "File", 0o600, "absolute path"],
    ["C:/x", "File", 0o600, "absolute path"],
    ["meetings\\..\\x", "File", 0o600, "absolute path"],
    ["meetings/../../x", "File", 0o600, "leaving the data dir"],
    ["..", "Directory", 0o700, "leaving the data dir"],
    ["meetings/a", "SymbolicLink", 0o777, "symbolic link"],
    ["meetings/a", "Link", 0o600, "hard link"],
    ["meetings/a", "CharacterDevice", 0o600, "device file"],
    ["meetings/a", "BlockDevice", 0o600, "device file"],
    ["meetings/a", "FIFO", 0o600, "FIFO"],
    ["meetings/a", "ContiguousFile", 0o600, "type ContiguousFile"],
    ["meetings/a", "File", 0o4755, "setuid"],
    ["meetings/a/", "Directory", 0o2700, "setuid"],
    ["verbatim.db-wal", "File", 0o600, "outside a backup's layout"],
    ["serve.lock", "File", 0o600, "outside a backup's layout"],
    ["verbatim.db/", "Directory", 0o700, "unexpected verbatim.db"],
    ["meetings/verbatim.db", "File", 0o600, ""],
    ["meetings", "File", 0o600, "a file where a backup has a folder"],
  ];
  for (const [path, type, mode, why] of cases) {
    const problem = entryProblem(path, type, mode);
    if (why === "") expect({ path, problem }).toEqual({ path, problem: undefined }); // a meeting's own file may have any name
    else expect({ path, problem }).toEqual({ path, problem: expect.stringContaining(why) });
  }
});
