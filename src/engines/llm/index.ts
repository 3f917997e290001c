/** The local-LLM report engine (node-llama-cpp): see docs/engines/llm.md. */
export { createLlamaReporter, createReporterWithRuntime, type LlamaReporter, type LlamaReporterOptions, type ReportStats } from "./reporter.ts";
export { documentAnswerSchema, documentTitle, parseDocumentAnswer, writeDocument, type WriterOptions, type WriterStats } from "./writer.ts";
export {
  DEFAULT_REPORT_LIMITS,
  REPORT_JSON_SCHEMA,
  isStructuredReport,
  limitsForOutputTokens,
  reportJsonSchema,
  validateReport,
  type ReportJsonSchema,
  type ReportLimits,
} from "./schema.ts";
export { INVALID_OUTPUT, cleanReport, parseModelOutput } from "./parse.ts";
export { renderMarkdown } from "./markdown.ts";
export { deterministicMerge } from "./merge.ts";
export { checkGgufModel, modelNameOf } from "./gguf-check.ts";
export { buildPrompt, formatTranscriptLine } from "./prompt.ts";
export { normalizeLanguage, wordingFor } from "./language.ts";
export type { LlmRuntime, ReportGrammar } from "./runtime.ts";
