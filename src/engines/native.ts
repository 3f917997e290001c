import { dirname, join } from "node:path";

/**
 * The native engine packages (node-llama-cpp, smart-whisper, @fugood/whisper.node,
 * sherpa-onnx-node) are never bundled into the compiled executable: their .node libraries and
 * platform packages are found at run time. From source they resolve as usual; the executable
 * looks in VERBATIM_NATIVE_MODULES (a folder holding node_modules), then in lib/ beside itself
 * (the release archive, scripts/package.sh), then beside itself, then one folder up
 * (dist/verbatim inside a checkout finds the checkout's node_modules).
 */
export const COMPILED = import.meta.path.startsWith("/$bunfs/") || /^[A-Z]:\\~BUN\\/.test(import.meta.path);

export function nativeSearchRoots(env: Record<string, string | undefined> = process.env): string[] {
  const besideExecutable = dirname(process.execPath);
  return [env.VERBATIM_NATIVE_MODULES, join(besideExecutable, "lib"), besideExecutable, join(besideExecutable, "..")].filter((dir): dir is string => !!dir);
}

/** The specifier to import or require: the package name from source, an absolute path from the executable. */
export function resolveNative(specifier: string): string {
  if (!COMPILED) return specifier;
  const roots = nativeSearchRoots();
  for (const root of roots) {
    try {
      return Bun.resolveSync(specifier, root);
    } catch {
      // not in this one
    }
  }
  throw new Error(`${specifier} is not installed in node_modules in any of: ${roots.join(", ")} (set VERBATIM_NATIVE_MODULES)`);
}

export async function importNative<T>(specifier: string): Promise<T> {
  return (await import(resolveNative(specifier))) as T;
}

export function requireNative<T>(specifier: string): T {
  return require(resolveNative(specifier)) as T;
}

/**
 * node-llama-cpp tests its binary in a child it forks with process.execPath and a script path.
 * In the compiled executable, process.execPath is Verbatim itself; BUN_BE_BUN makes that child
 * act as the plain bun runtime and run the script. Set only in the worker process.
 */
export function letForkedScriptsRun(env: Record<string, string | undefined> = process.env): void {
  if (COMPILED) env.BUN_BE_BUN = "1";
}
