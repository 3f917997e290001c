// Reads the imports of the TypeScript files under src/ and resolves the relative ones to files, for
// the architecture test. Parsing is @babel/parser's (TypeScript 7's compiler has no JS API that
// parses one file, and Bun's transpiler drops type-only imports, which are coupling all the same).
import { parse } from "@babel/parser";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

export interface ImportSpecifier {
  specifier: string;
  line: number;
  /** `import type`, `export type ... from`, every named part `type`, or `import("x").T` in a type. */
  typeOnly: boolean;
}

/** One import of one file by another, paths relative to the source root ("jobs/scheduler.ts"). */
export interface ImportEdge {
  from: string;
  /** The imported file; outside the source root it starts with "../". */
  to: string;
  specifier: string;
  line: number;
  typeOnly: boolean;
}

/**
 * Every module specifier a file names: import and export-from declarations, `import x = require()`,
 * dynamic `import()` and `require()` with a literal, and `import("x")` types.
 */
export function readImports(text: string, fileName = "file.ts"): ImportSpecifier[] {
  const plugins: ("typescript" | "jsx")[] = fileName.endsWith(".tsx") ? ["typescript", "jsx"] : ["typescript"];
  const ast = parse(text, { sourceType: "module", plugins, sourceFilename: fileName, errorRecovery: false });
  const found: ImportSpecifier[] = [];
  const add = (source: { value: unknown; loc?: { start: { line: number } } | null } | null | undefined, typeOnly: boolean) => {
    if (source && typeof source.value === "string") found.push({ specifier: source.value, line: source.loc?.start.line ?? 0, typeOnly });
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== "object" || typeof (node as { type?: unknown }).type !== "string") return;
    const n = node as Record<string, any>;
    switch (n.type) {
      case "ImportDeclaration": {
        const parts: any[] = n.specifiers ?? [];
        add(n.source, n.importKind === "type" || (parts.length > 0 && parts.every((s) => s.importKind === "type")));
        break;
      }
      case "ExportNamedDeclaration":
      case "ExportAllDeclaration":
        if (n.source) {
          const parts: any[] = n.specifiers ?? [];
          add(n.source, n.exportKind === "type" || (parts.length > 0 && parts.every((s) => s.exportKind === "type")));
        }
        break;
      case "TSImportEqualsDeclaration":
        if (n.moduleReference?.type === "TSExternalModuleReference") add(n.moduleReference.expression, n.importKind === "type");
        break;
      case "TSImportType":
        add(n.source, true);
        break;
      case "ImportExpression":
        add(n.source, false);
        break;
      case "CallExpression":
        if ((n.callee?.type === "Import" || (n.callee?.type === "Identifier" && n.callee.name === "require")) && n.arguments?.[0]?.type === "StringLiteral") {
          add(n.arguments[0], false);
        }
        break;
    }
    for (const [key, value] of Object.entries(n)) {
      if (key !== "loc" && key !== "leadingComments" && key !== "trailingComments" && key !== "innerComments") visit(value);
    }
  };
  visit(ast.program);
  return found;
}

const EXTENSIONS = ["", ".ts", ".tsx", ".d.ts", ".js", "/index.ts"];

/** The file a relative specifier names, or undefined for a package (or a file that is not there). */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const base = resolve(dirname(fromFile), specifier);
  for (const extension of EXTENSIONS) {
    const candidate = base + extension;
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** A product file's import of a package (or a `bun:` module), for the rules on who may use the database driver. */
export interface PackageImport {
  from: string;
  specifier: string;
  line: number;
}

/**
 * The import edges between the product files under `root` (.ts and .tsx; test files left out: they
 * are not product code), and every package they import.
 */
export function importGraph(root: string): { files: string[]; edges: ImportEdge[]; unresolved: ImportEdge[]; packages: PackageImport[] } {
  const files = [...new Bun.Glob("**/*.{ts,tsx}").scanSync({ cwd: root })].filter((file) => !/\.test\.tsx?$/.test(file)).sort();
  const edges: ImportEdge[] = [];
  const unresolved: ImportEdge[] = [];
  const packages: PackageImport[] = [];
  const rel = (path: string) => relative(root, path).split(sep).join("/");
  for (const file of files) {
    const path = join(root, file);
    for (const found of readImports(readFileSync(path, "utf8"), path)) {
      const isRelative = found.specifier.startsWith("./") || found.specifier.startsWith("../");
      if (!isRelative) {
        packages.push({ from: file, specifier: found.specifier, line: found.line });
        continue;
      }
      const target = resolveSpecifier(path, found.specifier);
      const edge = { from: file, to: target ? rel(target) : rel(resolve(dirname(path), found.specifier)), ...found };
      (target ? edges : unresolved).push(edge);
    }
  }
  return { files, edges, unresolved, packages };
}
