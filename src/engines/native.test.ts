import { expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { nativeSearchRoots, resolveNative } from "./native.ts";

test("from source, native packages resolve by name as usual", () => {
  expect(resolveNative("node-llama-cpp")).toBe("node-llama-cpp");
  expect(resolveNative("sherpa-onnx-node/addon.js")).toBe("sherpa-onnx-node/addon.js");
});

test("the executable looks in VERBATIM_NATIVE_MODULES, then lib/ beside itself (the archive), then beside itself, then one folder up", () => {
  const beside = dirname(process.execPath);
  expect(nativeSearchRoots({ VERBATIM_NATIVE_MODULES: "/opt/verbatim" })).toEqual(["/opt/verbatim", join(beside, "lib"), beside, join(beside, "..")]);
  expect(nativeSearchRoots({})).toEqual([join(beside, "lib"), beside, join(beside, "..")]);
});
