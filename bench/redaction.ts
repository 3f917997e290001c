/**
 * Precision and recall of PII detection per entity kind on the redaction corpus
 * (test/fixtures/redaction, README there), issue 23:
 *
 *   bun bench/redaction.ts [llmModelPath] [--no-llm] [--threads N]
 *   bun bench/redaction.ts models/llm/qwen2.5-3b-instruct-q4_k_m.gguf
 *
 * Two runs: the validated recognisers and the participants' names alone (no model), then the same
 * with the local LLM's entity finder (default: the development stand-in, models/llm/stories260K.gguf).
 * The structured kinds do not depend on the model; persons and addresses beyond the participants
 * do, and are reported apart: the stand-in writes random text, so it finds none, and the figures
 * with a real instruction model are the ones that say something about names.
 * Exit status 1 on a crash only: the figures are reported, src/redaction/corpus.test.ts asserts the bar.
 */
import { existsSync } from "node:fs";
import { createLlamaReporter } from "../src/engines/llm/reporter.ts";
import { redactTranscript } from "../src/redaction/redact.ts";
import { ENTITY_KINDS, STRUCTURED_KINDS, type EntityFinder, type EntityKind } from "../src/redaction/types.ts";
import { LONG_MEETING_PARTICIPANTS, loadCorpus, longMeeting, scoreCorpus, type KindScore } from "../test/fixtures/redaction/corpus.ts";

const args = process.argv.slice(2);
const noLlm = args.includes("--no-llm");
const threadsAt = args.indexOf("--threads");
const threads = threadsAt >= 0 ? Number(args[threadsAt + 1]) : 2;
const modelPath = args.find((arg, i) => !arg.startsWith("--") && args[i - 1] !== "--threads") ?? "models/llm/stories260K.gguf";

const STRUCTURED = new Set<EntityKind>(STRUCTURED_KINDS);
const files = loadCorpus();

function table(title: string, scores: Record<EntityKind, KindScore>): void {
  console.log(`\n### ${title}\n`);
  console.log("| kind | expected | found | recall | precision | |");
  console.log("|---|---:|---:|---:|---:|---|");
  for (const kind of ENTITY_KINDS) {
    const s = scores[kind];
    const bar = STRUCTURED.has(kind) ? (s.recall === 1 && s.precision >= 0.98 ? "meets the bar" : "BELOW THE BAR") : "model-dependent";
    console.log(`| ${kind} | ${s.expected} | ${s.found} | ${s.recall.toFixed(3)} | ${s.precision.toFixed(3)} | ${bar} |`);
  }
  for (const kind of ENTITY_KINDS) {
    const s = scores[kind];
    if (s.missed.length) console.log(`- ${kind} missed: ${s.missed.join("; ")}`);
    if (s.spurious.length) console.log(`- ${kind} false: ${s.spurious.join("; ")}`);
  }
}

/** Time to redact a 30-minute transcript (450 segments of 10 words, entities in four of five), recognisers only. */
async function speed(): Promise<number> {
  const started = performance.now();
  await redactTranscript(
    longMeeting(),
    { entities: [...ENTITY_KINDS], audio: true, caseNumberPattern: String.raw`RG ?\d{2}/\d{5}` },
    { participantNames: LONG_MEETING_PARTICIPANTS, finder: null },
  );
  return performance.now() - started;
}

const entities = files.reduce((n, file) => n + file.expected.length, 0);
console.log(`Corpus: ${files.length} files (${files.map((f) => `${f.name} [${f.language}]`).join(", ")}), ${entities} marked entities.`);

table("Recognisers and participants' names, no model", await scoreCorpus(files, null));

if (noLlm) {
  console.log("\n(--no-llm: the LLM finder was not run)");
} else if (!existsSync(modelPath)) {
  console.log(`\n(no model at ${modelPath}: the LLM finder was not run)`);
} else {
  const reporter = await createLlamaReporter({ modelPath, threads, gpu: false });
  const finder: EntityFinder = reporter;
  const started = performance.now();
  const scores = await scoreCorpus(files, finder);
  const seconds = (performance.now() - started) / 1000;
  await reporter.close();
  table(`With the LLM finder: ${reporter.model} (${threads} threads, ${seconds.toFixed(1)} s for the corpus)`, scores);
}

console.log(`\nA 30-minute transcript (450 segments), every kind, no model: ${(await speed()).toFixed(0)} ms.`);
