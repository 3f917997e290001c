import { readFileSync } from "node:fs";
import { modelFile, unreadableModel, type ModelSource } from "../model-file.ts";
import { EngineError } from "../types.ts";

/**
 * Checks an ONNX file before sherpa-onnx sees it. sherpa-onnx-node cannot report a bad model: a
 * protobuf that onnxruntime fails to parse raises a C++ exception nothing catches, and missing
 * metadata makes sherpa call exit(). Either takes the whole process down. So this parses the
 * protobuf structure of the file (every length must fit, the top level must end exactly at the
 * end of the file, which catches truncation and bytes lost in transit), requires the parts of a
 * ModelProto onnxruntime needs (ir_version, opset_import, a graph with nodes, inputs and
 * outputs), and the metadata keys sherpa reads for the file's role.
 *
 * It runs after the common file check (../model-file.ts: there, size and sha256 when the
 * catalogue knows the file). It is a structural check, not a semantic one: a well-formed file with a broken graph (an
 * unknown operator, mismatched shapes) can still make onnxruntime throw while loading.
 */

export type DiarizationModelRole = "segmentation" | "embedding";

export type { ExpectedModelFile } from "../model-file.ts";

export interface OnnxModelInfo {
  irVersion: number;
  opsets: number;
  nodes: number;
  metadata: Record<string, string>;
}

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

class Malformed extends Error {}

interface Field {
  number: number;
  wire: number;
  /** The varint's value (wire type 0). */
  value: number;
  /** The bytes of a length-delimited field (wire type 2). */
  start: number;
  end: number;
}

function readVarint(buf: Uint8Array, pos: number, end: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw new Malformed("a number runs past the end of its message");
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) return [value, pos];
  }
  throw new Malformed("a number is longer than 10 bytes");
}

/** Every field of the message in buf[start, end); throws unless the fields fill it exactly. */
function fields(buf: Uint8Array, start: number, end: number): Field[] {
  const out: Field[] = [];
  let pos = start;
  while (pos < end) {
    const [tag, afterTag] = readVarint(buf, pos, end);
    const number = Math.floor(tag / 8);
    const wire = tag % 8;
    if (number < 1 || number > 536_870_911) throw new Malformed(`invalid field number ${number} at byte ${pos}`);
    pos = afterTag;
    const field: Field = { number, wire, value: 0, start: pos, end: pos };
    switch (wire) {
      case WIRE_VARINT:
        [field.value, pos] = readVarint(buf, pos, end);
        break;
      case WIRE_I64:
        pos += 8;
        break;
      case WIRE_I32:
        pos += 4;
        break;
      case WIRE_LEN: {
        const [length, afterLength] = readVarint(buf, pos, end);
        field.start = afterLength;
        pos = afterLength + length;
        field.end = pos;
        break;
      }
      default:
        throw new Malformed(`unsupported wire type ${wire} at byte ${afterTag - 1}`);
    }
    if (pos > end) throw new Malformed(`field ${number} runs past the end of its message (byte ${end})`);
    out.push(field);
  }
  return out;
}

const text = (buf: Uint8Array, f: Field) => Buffer.from(buf.buffer, buf.byteOffset + f.start, f.end - f.start).toString("utf8");

function parseModel(buf: Uint8Array): OnnxModelInfo {
  // ModelProto: 1 ir_version, 7 graph, 8 opset_import, 14 metadata_props.
  const top = fields(buf, 0, buf.length);
  const irVersion = top.find((f) => f.number === 1 && f.wire === WIRE_VARINT)?.value ?? 0;
  if (irVersion < 1 || irVersion > 100) throw new Malformed(irVersion ? `implausible ir_version ${irVersion}` : "no ir_version");
  const opsets = top.filter((f) => f.number === 8 && f.wire === WIRE_LEN);
  if (!opsets.length) throw new Malformed("no opset_import");
  for (const o of opsets) fields(buf, o.start, o.end);
  const graphs = top.filter((f) => f.number === 7 && f.wire === WIRE_LEN);
  if (graphs.length !== 1) throw new Malformed(graphs.length ? "more than one graph" : "no graph");

  // GraphProto: 1 node, 5 initializer, 11 input, 12 output, 13 value_info.
  const graph = fields(buf, graphs[0]!.start, graphs[0]!.end);
  let nodes = 0;
  for (const f of graph) {
    if (f.wire !== WIRE_LEN) continue;
    if (f.number === 1) {
      nodes++;
      fields(buf, f.start, f.end);
    } else if (f.number === 11 || f.number === 12 || f.number === 13) {
      fields(buf, f.start, f.end);
    } else if (f.number === 5) {
      // TensorProto: 14 data_location; 1 = EXTERNAL, which sherpa (loading from memory) cannot resolve.
      if (fields(buf, f.start, f.end).some((t) => t.number === 14 && t.wire === WIRE_VARINT && t.value === 1)) {
        throw new Malformed("its weights are stored in an external data file, which sherpa-onnx cannot load");
      }
    }
  }
  if (!nodes) throw new Malformed("the graph has no nodes");
  if (!graph.some((f) => f.number === 11)) throw new Malformed("the graph has no inputs");
  if (!graph.some((f) => f.number === 12)) throw new Malformed("the graph has no outputs");

  // StringStringEntryProto: 1 key, 2 value.
  const metadata: Record<string, string> = {};
  for (const m of top.filter((f) => f.number === 14 && f.wire === WIRE_LEN)) {
    const entry = fields(buf, m.start, m.end);
    const key = entry.find((f) => f.number === 1 && f.wire === WIRE_LEN);
    const value = entry.find((f) => f.number === 2 && f.wire === WIRE_LEN);
    if (key) metadata[text(buf, key)] = value ? text(buf, value) : "";
  }
  return { irVersion, opsets: opsets.length, nodes, metadata };
}

const INTEGER = /^-?\d+$/;

/** The metadata sherpa-onnx reads (and exits without) for each role, with the values it can use. */
function checkMetadata(role: DiarizationModelRole, meta: Record<string, string>): string | null {
  const need = (keys: string[]) => keys.find((k) => meta[k] === undefined || !INTEGER.test(meta[k]!.trim()));
  const int = (k: string) => Number(meta[k]!.trim());
  if (role === "segmentation") {
    const bad = need(["sample_rate", "window_size", "receptive_field_size", "receptive_field_shift", "num_speakers", "powerset_max_classes", "num_classes"]);
    if (bad) return `metadata "${bad}" is missing or not an integer (is this a pyannote segmentation model?)`;
    if (int("sample_rate") !== 16_000) return `it expects ${int("sample_rate")} Hz audio, not 16000 Hz`;
    const speakers = int("num_speakers");
    const maxClasses = int("powerset_max_classes");
    if (int("window_size") < 1 || int("receptive_field_shift") < 1 || speakers < 1) return "its window or frame sizes are not positive";
    if (maxClasses < 1 || maxClasses > 2) return `powerset_max_classes ${maxClasses} is not supported by sherpa-onnx (1 or 2)`;
    const classes = 1 + speakers + (maxClasses === 2 ? (speakers * (speakers - 1)) / 2 : 0);
    if (int("num_classes") !== classes) return `num_classes ${int("num_classes")} does not match ${speakers} speakers (expected ${classes})`;
    return null;
  }
  const bad = need(["output_dim", "sample_rate", "normalize_samples"]);
  if (bad) return `metadata "${bad}" is missing or not an integer (is this a speaker embedding model?)`;
  if (meta.language === undefined) return 'metadata "language" is missing';
  if (meta.framework !== "wespeaker" && meta.framework !== "3d-speaker") {
    return `metadata "framework" is ${meta.framework === undefined ? "missing" : `"${meta.framework}"`}; sherpa-onnx needs "wespeaker" or "3d-speaker"`;
  }
  if (int("sample_rate") !== 16_000) return `it expects ${int("sample_rate")} Hz audio, not 16000 Hz`;
  if (int("output_dim") < 1) return "output_dim is not positive";
  return null;
}

/**
 * The ONNX structure of a model file, checked before sherpa-onnx sees it: onnxruntime aborts the
 * whole process on some malformed models. `role` names it in messages ("VAD", "segmentation").
 */
export function checkOnnxModel(source: ModelSource, role: string): OnnxModelInfo {
  const model = modelFile(source);
  let buf: Buffer;
  try {
    buf = readFileSync(model.path);
  } catch (error) {
    throw unreadableModel(model, role, error);
  }
  try {
    return parseModel(buf);
  } catch (error) {
    if (!(error instanceof Malformed)) throw error;
    throw new EngineError("model_invalid", `The ${role} model ${model.name} is not a valid ONNX model: ${error.message}.`, false);
  }
}

/**
 * Verifies the structure and metadata of one diarization model file; throws EngineError
 * model_missing / model_invalid (not retryable) with a message naming the model and the fault.
 */
export function checkDiarizationModel(source: ModelSource, role: DiarizationModelRole): OnnxModelInfo {
  const info = checkOnnxModel(source, role);
  const fault = checkMetadata(role, info.metadata);
  if (fault) throw new EngineError("model_invalid", `The ${role} model ${modelFile(source).name} cannot be used by sherpa-onnx: ${fault}.`, false);
  return info;
}
