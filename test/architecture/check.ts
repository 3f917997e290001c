// The import rules between the top-level folders of src/ and the folder-cycle check, on import edges
// (from ./imports.ts or, in the checker's own test, made up). Pure: no file system.
import type { ImportEdge } from "./imports.ts";

/** Files directly in src/ (service.ts, main.ts, config.ts): the composition root. */
export const ROOT_FOLDER = "(root)";
/** Anything an import reaches outside src/ (test/, bench/, scripts/). */
export const OUTSIDE = "(outside src)";

/** The top-level folder of a path relative to src/. */
export function folderOf(file: string): string {
  if (file.startsWith("../")) return OUTSIDE;
  const slash = file.indexOf("/");
  return slash < 0 ? ROOT_FOLDER : file.slice(0, slash);
}

export interface Rule {
  /** What the rule protects, printed above its violations. */
  description: string;
  /** The top-level folder whose files the rule constrains; "*" for every folder. */
  folder: string;
  /** With "*": folders the rule leaves alone. */
  except?: string[];
  /**
   * Everything its files may import besides their own folder: top-level folders ("db") or files and
   * globs relative to src/ ("worker/protocol.ts"). Anything else is a violation.
   */
  allow?: string[];
  /** What its files may not import: top-level folders, or files and globs ("meetings/table.ts"). */
  forbid?: string[];
}

/**
 * A rule on files rather than folders: what the files its globs name may import, imports inside
 * their own folder included (routes.ts may not import its own domain's store). Package imports
 * (the database driver) are edges too: `to` is the package's name ("drizzle-orm/sqlite-core").
 */
export interface FileRule {
  /** What the rule protects, printed above its violations. */
  description: string;
  /** The importing files it constrains: globs relative to src/ (every routes.ts, all of web/). */
  files: string[];
  /** Importing files it leaves alone (globs). */
  except?: string[];
  /** What they may not import: globs of files relative to src/, or of package names ("drizzle-orm{,/**}"). */
  forbid: string[];
  /** Imports it lets through although `forbid` names them (globs). */
  allow?: string[];
}

export interface Violation {
  rule: Rule | FileRule;
  edge: ImportEdge;
}

/** A folder name, or a file or glob when it has a slash or an extension. */
function matches(entry: string, target: string): boolean {
  if (entry.includes("/") || entry.endsWith(".ts")) return new Bun.Glob(entry).match(target);
  return folderOf(target) === entry;
}

export function ruleViolations(edges: ImportEdge[], rules: Rule[]): Violation[] {
  const violations: Violation[] = [];
  for (const rule of rules) {
    for (const edge of edges) {
      const from = folderOf(edge.from);
      if (rule.folder !== "*" && from !== rule.folder) continue;
      if (rule.except?.includes(from)) continue;
      if (folderOf(edge.to) === from) continue;
      const allowed = rule.allow ? rule.allow.some((entry) => matches(entry, edge.to)) : true;
      const forbidden = rule.forbid ? rule.forbid.some((entry) => matches(entry, edge.to)) : false;
      if (!allowed || forbidden) violations.push({ rule, edge });
    }
  }
  return violations;
}

/** The imports that break a file rule; `edges` may hold package imports (`to` the package's name). */
export function fileRuleViolations(edges: ImportEdge[], rules: FileRule[]): Violation[] {
  const any = (globs: string[] | undefined, path: string) => (globs ?? []).some((glob) => new Bun.Glob(glob).match(path));
  const violations: Violation[] = [];
  for (const rule of rules) {
    for (const edge of edges) {
      if (!any(rule.files, edge.from) || any(rule.except, edge.from)) continue;
      if (any(rule.forbid, edge.to) && !any(rule.allow, edge.to)) violations.push({ rule, edge });
    }
  }
  return violations;
}

export interface FolderCycle {
  /** The folders of one strongly connected component, sorted. */
  folders: string[];
  /** One shortest round trip through the component, e.g. ["jobs", "meetings", "jobs"]. */
  path: string[];
  /** Every folder-to-folder import inside the component, with one example import each. */
  links: { from: string; to: string; example: ImportEdge }[];
}

/** Import cycles between folders: the strongly connected components of more than one folder (Tarjan). */
export function folderCycles(edges: ImportEdge[], ignore: string[] = []): FolderCycle[] {
  const kept = edges.filter((edge) => {
    const [from, to] = [folderOf(edge.from), folderOf(edge.to)];
    return from !== to && !ignore.includes(from) && !ignore.includes(to);
  });
  return cycles(kept, folderOf).map(({ members, path, links }) => ({ folders: members, path, links }));
}

export interface FileCycle {
  /** The files of one strongly connected component, sorted. */
  files: string[];
  /** One shortest round trip through the component, e.g. ["engines/a.ts", "engines/b.ts", "engines/a.ts"]. */
  path: string[];
  links: { from: string; to: string; example: ImportEdge }[];
}

/** Import cycles between the files inside one top-level folder ("engines"), type-only imports included. */
export function fileCycles(edges: ImportEdge[], folder: string): FileCycle[] {
  const inside = edges.filter((edge) => folderOf(edge.from) === folder && folderOf(edge.to) === folder && edge.from !== edge.to);
  return cycles(inside, (file) => file).map(({ members, path, links }) => ({ files: members, path, links }));
}

/** The strongly connected components of more than one node (Tarjan), nodes being `nodeOf` each end of an edge. */
function cycles(edges: ImportEdge[], nodeOf: (file: string) => string): { members: string[]; path: string[]; links: { from: string; to: string; example: ImportEdge }[] }[] {
  const examples = new Map<string, Map<string, ImportEdge>>();
  for (const edge of edges) {
    const [from, to] = [nodeOf(edge.from), nodeOf(edge.to)];
    if (!examples.has(from)) examples.set(from, new Map());
    if (!examples.has(to)) examples.set(to, new Map());
    const out = examples.get(from)!;
    if (!out.has(to)) out.set(to, edge);
  }
  const next = (node: string) => [...(examples.get(node)?.keys() ?? [])].sort();

  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next(node)) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...examples.keys()].sort()) if (!index.has(node)) connect(node);

  return components
    .map((members) => {
      const inside = new Set(members);
      const links = members.flatMap((from) => next(from).filter((to) => inside.has(to)).map((to) => ({ from, to, example: examples.get(from)!.get(to)! })));
      return { members, path: shortestRoundTrip(members[0]!, (n) => next(n).filter((to) => inside.has(to))), links };
    })
    .sort((a, b) => a.members[0]!.localeCompare(b.members[0]!));
}

/** Breadth-first: the shortest path from `start` back to itself. */
function shortestRoundTrip(start: string, next: (folder: string) => string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const folder = queue.shift()!;
    for (const to of next(folder)) {
      if (to === start) {
        const path = [folder];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, folder);
        queue.push(to);
      }
    }
  }
  return [start];
}

function describeEdge(edge: ImportEdge): string {
  return `${edge.from}:${edge.line} imports ${edge.to}${edge.typeOnly ? " (types only)" : ""}`;
}

/** The readable list the test fails with; empty when all is well. */
export function report(violations: Violation[], cycles: FolderCycle[], files: FileCycle[] = []): string {
  const out: string[] = [];
  const byRule = new Map<Rule | FileRule, Violation[]>();
  for (const violation of violations) byRule.set(violation.rule, [...(byRule.get(violation.rule) ?? []), violation]);
  for (const [rule, found] of byRule) {
    out.push(`${rule.description} (${found.length}):`);
    for (const { edge } of found) out.push(`  ${describeEdge(edge)}`);
  }
  for (const cycle of cycles) {
    out.push(`import cycle between folders ${cycle.folders.join(", ")}: ${cycle.path.join(" → ")}`);
    for (const link of cycle.links) out.push(`  ${link.from} → ${link.to}: e.g. ${describeEdge(link.example)}`);
  }
  for (const cycle of files) {
    out.push(`import cycle between files ${cycle.files.join(", ")}: ${cycle.path.join(" → ")}`);
    for (const link of cycle.links) out.push(`  ${describeEdge(link.example)}`);
  }
  return out.join("\n");
}
