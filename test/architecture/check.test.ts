// The architecture test's own machinery, on made-up sources and edges: the import reader, the
// folder-cycle finder and the report it fails with.
import { expect, test } from "bun:test";
import { fileCycles, folderCycles, folderOf, report, ruleViolations, type Rule } from "./check.ts";
import { readImports, type ImportEdge } from "./imports.ts";

test("readImports: every kind of import, type-only ones flagged, strings and comments ignored", () => {
  const source = [
    'import type { A } from "./a.ts";',
    'import type { B } from "./b.ts";',
    'import { C, type D } from "./c.ts";',
    'import E from "./e.ts";',
    'import * as F from "./f.ts";',
    'import "./g.ts";',
    'export type { H } from "./h.ts";',
    'export { I } from "./i.ts";',
    'export * from "./j.ts";',
    'export * as K from "./k.ts";',
    "const l = await import(\"./l.ts\");",
    'type M = import("./m.ts").M;',
    'const n = require("./n.ts");',
    'import o = require("./o.ts");',
    'import { p } from "some-package";',
    "const q = \"import x from './not-an-import.ts'\";",
    "// import { r } from './commented-out.ts';",
    "function s<T extends { a: number }>(x: T): T { return x; }",
  ].join("\n");
  expect(readImports(source).map(({ specifier, typeOnly, line }) => [specifier, typeOnly, line])).toEqual([
    ["./a.ts", true, 1],
    ["./b.ts", true, 2],
    ["./c.ts", false, 3],
    ["./e.ts", false, 4],
    ["./f.ts", false, 5],
    ["./g.ts", false, 6],
    ["./h.ts", true, 7],
    ["./i.ts", false, 8],
    ["./j.ts", false, 9],
    ["./k.ts", false, 10],
    ["./l.ts", false, 11],
    ["./m.ts", true, 12],
    ["./n.ts", false, 13],
    ["./o.ts", false, 14],
    ["some-package", false, 15],
  ]);
});

test("readImports: a file that does not parse fails loudly instead of looking import-free", () => {
  expect(() => readImports('import { a } from "./a.ts";\nconst = ;', "broken.ts")).toThrow();
});

test("folderOf: the top-level folder under src/, the root's own files, and what lies outside", () => {
  expect(folderOf("jobs/scheduler.ts")).toBe("jobs");
  expect(folderOf("engines/whisper/backends/fugood.ts")).toBe("engines");
  expect(folderOf("service.ts")).toBe("(root)");
  expect(folderOf("../bench/quality/metrics.ts")).toBe("(outside src)");
});

const edge = (from: string, to: string, line = 1, typeOnly = false): ImportEdge => ({ from, to, specifier: to, line, typeOnly });

test("folderCycles: each strongly connected group of folders, its shortest round trip and one import per link", () => {
  const edges = [
    // a → b → c → a, and a → c → a: one group of three.
    edge("a/one.ts", "b/one.ts", 3),
    edge("a/two.ts", "b/two.ts", 9),
    edge("b/one.ts", "c/one.ts"),
    edge("c/one.ts", "a/one.ts", 2, true),
    edge("a/one.ts", "c/one.ts", 4),
    // d ⇄ e: a second group.
    edge("d/x.ts", "e/x.ts"),
    edge("e/x.ts", "d/y.ts"),
    // f → a, a file importing its own folder, and the root importing everyone: no cycle.
    edge("f/x.ts", "a/one.ts"),
    edge("a/one.ts", "a/two.ts"),
    edge("main.ts", "a/one.ts"),
    edge("a/one.ts", "config.ts"),
  ];
  const cycles = folderCycles(edges, ["(root)"]);
  expect(cycles.map((c) => c.folders)).toEqual([
    ["a", "b", "c"],
    ["d", "e"],
  ]);
  expect(cycles[0]!.path).toEqual(["a", "c", "a"]);
  expect(cycles[0]!.links.map((l) => `${l.from}→${l.to} ${l.example.from}:${l.example.line}`)).toEqual([
    "a→b a/one.ts:3",
    "a→c a/one.ts:4",
    "b→c b/one.ts:1",
    "c→a c/one.ts:2",
  ]);
  // Not exempt, the root closes a loop with a/.
  expect(folderCycles(edges).map((c) => c.folders)).toEqual([["(root)", "a", "b", "c"], ["d", "e"]]);
  expect(folderCycles([edge("a/x.ts", "b/x.ts"), edge("b/x.ts", "c/x.ts")])).toEqual([]);
});

test("report: one block per broken rule and per cycle, each import with file, line and kind", () => {
  const rule: Rule = { description: "a/ imports only b/", folder: "a", allow: ["b"] };
  const violations = ruleViolations([edge("a/x.ts", "b/x.ts"), edge("a/x.ts", "c/x.ts", 7, true)], [rule]);
  const cycles = folderCycles([edge("d/x.ts", "e/x.ts", 5), edge("e/x.ts", "d/x.ts", 6)]);
  expect(report(violations, cycles)).toBe(
    [
      "a/ imports only b/ (1):",
      "  a/x.ts:7 imports c/x.ts (types only)",
      "import cycle between folders d, e: d → e → d",
      "  d → e: e.g. d/x.ts:5 imports e/x.ts",
      "  e → d: e.g. e/x.ts:6 imports d/x.ts",
    ].join("\n"),
  );
  expect(report([], [])).toBe("");
});

test("fileCycles: loops between the files of one folder, not across folders; reported file by file", () => {
  const edges = [
    edge("e/a.ts", "e/sub/b.ts", 2),
    edge("e/sub/b.ts", "e/a.ts", 3, true),
    edge("e/c.ts", "e/a.ts"),
    // Through another folder: a folder cycle's business, not this one's.
    edge("e/c.ts", "f/x.ts"),
    edge("f/x.ts", "e/c.ts"),
  ];
  const cycles = fileCycles(edges, "e");
  expect(cycles.map((c) => [c.files, c.path])).toEqual([[["e/a.ts", "e/sub/b.ts"], ["e/a.ts", "e/sub/b.ts", "e/a.ts"]]]);
  expect(fileCycles(edges, "f")).toEqual([]);
  expect(report([], [], cycles)).toBe(
    ["import cycle between files e/a.ts, e/sub/b.ts: e/a.ts → e/sub/b.ts → e/a.ts", "  e/a.ts:2 imports e/sub/b.ts", "  e/sub/b.ts:3 imports e/a.ts (types only)"].join("\n"),
  );
});
