/**
 * Times the report engine on a model: load, then reports of a short and of a long synthetic
 * transcript, for each thread count given.
 *
 *   bun bench/llm.ts [modelPath] [threads,...] [runs]
 *   bun bench/llm.ts models/llm/stories260K.gguf 1,2 3
 */
import { loadavg } from "node:os";
import type { ReportInput } from "../src/engines/types.ts";
import { createLlamaReporter, type ReportStats } from "../src/engines/llm/reporter.ts";

const modelPath = process.argv[2] ?? "models/llm/stories260K.gguf";
const threadCounts = (process.argv[3] ?? "1,2").split(",").map(Number);
const runs = Number(process.argv[4] ?? 3);

function transcript(lines: number): ReportInput["transcript"] {
  const names = ["Anna", "Tom", "Lily"];
  return Array.from({ length: lines }, (_, i) => ({
    start: i * 7.5,
    end: i * 7.5 + 7,
    speaker: `SPEAKER_0${i % 3}`,
    text: `${names[i % 3]} said the bench in the park must be fixed by Friday, and Tom will buy a red ball.`,
  }));
}

const cases: { name: string; contextSize?: number; lines: number }[] = [
  { name: "short (8 lines, one pass)", lines: 8 },
  { name: "long (60 lines, ctx 1024: parts + merge)", contextSize: 1024, lines: 60 },
];

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
for (const threads of threadCounts) {
  for (const c of cases) {
    const stats: ReportStats[] = [];
    const started = performance.now();
    const reporter = await createLlamaReporter({ modelPath, threads, gpu: false, contextSize: c.contextSize, onStats: (s) => stats.push(s) });
    const loadMs = performance.now() - started;
    for (let run = 0; run < runs; run++) {
      await reporter.report({ title: null, language: "en", transcript: transcript(c.lines) }, { signal: new AbortController().signal, progress: () => {} });
    }
    await reporter.close();
    const ms = stats.map((s) => s.totalMs).sort((a, b) => a - b);
    const tps = stats.map((s) => s.tokensPerSecond).sort((a, b) => a - b);
    const s = stats[0]!;
    console.log(
      JSON.stringify({
        threads,
        case: c.name,
        loadMs: Math.round(loadMs),
        contextSize: s.contextSize,
        chunks: s.chunks,
        modelCalls: s.modelCalls,
        merge: s.merge,
        promptTokens: s.promptTokens,
        outputTokens: s.outputTokens,
        reportMs: { min: Math.round(ms[0]!), median: Math.round(ms[Math.floor(ms.length / 2)]!), max: Math.round(ms.at(-1)!) },
        tokensPerSecond: { min: tps[0], median: tps[Math.floor(tps.length / 2)], max: tps.at(-1) },
      }),
    );
  }
}
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
