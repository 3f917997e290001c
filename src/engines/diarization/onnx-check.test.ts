import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EngineError } from "../types.ts";
import { checkDiarizationModel } from "./onnx-check.ts";
import { MODELS } from "../../../test/support/diarization.ts";

const dir = mkdtempSync(join(tmpdir(), "verbatim-onnx-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A minimal protobuf writer, enough to build ModelProto-shaped files.
const varint = (n: number): number[] => {
  const out: number[] = [];
  do {
    out.push((n % 128) | (n >= 128 ? 128 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return out;
};
const int = (field: number, n: number) => [...varint(field * 8), ...varint(n)];
const bytes = (field: number, body: number[] | string) => {
  const b = typeof body === "string" ? [...new TextEncoder().encode(body)] : body;
  return [...varint(field * 8 + 2), ...varint(b.length), ...b];
};
const entry = (key: string, value: string) => bytes(14, [...bytes(1, key), ...bytes(2, value)]);
const EMBEDDING_META = [
  ...entry("framework", "wespeaker"),
  ...entry("sample_rate", "16000"),
  ...entry("output_dim", "4"),
  ...entry("normalize_samples", "0"),
  ...entry("language", "any"),
];
function model(parts: { graph?: number[]; opset?: boolean; ir?: number; meta?: number[] }): string {
  const graph = parts.graph ?? [...bytes(1, [...bytes(1, "x"), ...bytes(2, "y"), ...bytes(4, "Identity")]), ...bytes(11, bytes(1, "x")), ...bytes(12, bytes(1, "y"))];
  const body = [
    ...(parts.ir === 0 ? [] : int(1, parts.ir ?? 8)),
    ...(parts.opset === false ? [] : bytes(8, int(2, 17))),
    ...bytes(7, graph),
    ...(parts.meta ?? EMBEDDING_META),
  ];
  const path = join(dir, `m${Math.random().toString(36).slice(2)}.onnx`);
  writeFileSync(path, new Uint8Array(body));
  return path;
}
const fault = (path: string) => {
  try {
    checkDiarizationModel(path, "embedding");
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    return `${(error as EngineError).code}: ${(error as Error).message}`;
  }
};

describe("checkDiarizationModel", () => {
  test("accepts a well-formed model with the metadata sherpa reads", () => {
    const info = checkDiarizationModel(model({}), "embedding");
    expect(info).toMatchObject({ irVersion: 8, opsets: 1, nodes: 1, metadata: { framework: "wespeaker", output_dim: "4" } });
  });

  test("refuses what onnxruntime or sherpa would die on", () => {
    expect(fault(model({ ir: 0 }))).toMatch(/model_invalid: .*no ir_version/);
    expect(fault(model({ opset: false }))).toMatch(/no opset_import/);
    expect(fault(model({ graph: bytes(11, bytes(1, "x")) }))).toMatch(/no nodes/);
    expect(fault(model({ meta: EMBEDDING_META.slice(0, EMBEDDING_META.length - entry("language", "any").length) }))).toMatch(/"language" is missing/);
    expect(fault(model({ meta: [...entry("framework", "nemo"), ...EMBEDDING_META.slice(entry("framework", "wespeaker").length)] }))).toMatch(/"nemo"/);
    expect(fault(model({ meta: [...EMBEDDING_META.slice(0, entry("framework", "wespeaker").length), ...entry("sample_rate", "8000"), ...EMBEDDING_META.slice(entry("framework", "wespeaker").length + entry("sample_rate", "16000").length)] }))).toMatch(/8000 Hz/);
    // An initializer whose data lives in an external file (TensorProto.data_location = EXTERNAL).
    const external = [...bytes(1, [...bytes(1, "x"), ...bytes(2, "y"), ...bytes(4, "Identity")]), ...bytes(5, [...bytes(8, "w"), ...int(14, 1)]), ...bytes(11, bytes(1, "x")), ...bytes(12, bytes(1, "y"))];
    expect(fault(model({ graph: external }))).toMatch(/external data/);
  });

  test("segmentation metadata must describe a powerset sherpa supports", () => {
    const seg = (speakers: number, maxClasses: number, classes: number) =>
      model({
        meta: [
          ...entry("sample_rate", "16000"),
          ...entry("window_size", "160000"),
          ...entry("receptive_field_size", "991"),
          ...entry("receptive_field_shift", "270"),
          ...entry("num_speakers", String(speakers)),
          ...entry("powerset_max_classes", String(maxClasses)),
          ...entry("num_classes", String(classes)),
        ],
      });
    expect(() => checkDiarizationModel(seg(3, 2, 7), "segmentation")).not.toThrow();
    expect(() => checkDiarizationModel(seg(3, 3, 8), "segmentation")).toThrow(/powerset_max_classes 3/);
    expect(() => checkDiarizationModel(seg(3, 2, 5), "segmentation")).toThrow(/num_classes 5/);
  });

  test.skipIf(!MODELS)("accepts the shared stand-in models", () => {
    expect(checkDiarizationModel(MODELS!.segmentation, "segmentation").metadata.num_classes).toBe("29");
    expect(checkDiarizationModel(MODELS!.embedding, "embedding").metadata.output_dim).toBe("172");
  });
});
