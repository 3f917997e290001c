export {
  createSherpaDiarizer,
  lazySherpaDiarizer,
  normaliseTurns,
  DEFAULT_CLUSTERING_THRESHOLD,
  DEFAULT_MIN_DURATION_OFF,
  DEFAULT_MIN_DURATION_ON,
  type SherpaDiarizerOptions,
} from "./sherpa.ts";
export { checkDiarizationModel, type DiarizationModelRole, type ExpectedModelFile, type OnnxModelInfo } from "./onnx-check.ts";
export { planSpeakers, type SpeakerPlan } from "./speakers.ts";
export { readWavFloat32, SAMPLE_RATE } from "../wav.ts";
