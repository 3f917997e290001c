// Test doubles of the speech and report engines, loaded by the worker through --engines.
// Deterministic output from the audio's duration; failure modes come from TEST_ENGINE_BEHAVIOR,
// e.g. "transcribe:slow=30000" or "diarize:crash-once=/tmp/marker;summarize:fail".
// TEST_ENGINE_TRANSCRIPT names a JSON file of speech segments (with words) the transcriber answers
// instead: a test that needs known words at known times (redaction) writes it.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { SpeechSegment } from "../../src/transcripts/types.ts";
import { EngineError, type Engines, type StepContext } from "../../src/engines/types.ts";

type Behaviour = { slow?: number; fail?: boolean; crash?: boolean; crashOnce?: string; hang?: boolean };

function behaviours(): Record<string, Behaviour> {
  const out: Record<string, Behaviour> = {};
  for (const part of (process.env.TEST_ENGINE_BEHAVIOR ?? "").split(";").filter(Boolean)) {
    const [step, rule] = part.split(":") as [string, string];
    const [name, value] = rule.split("=") as [string, string | undefined];
    const b = (out[step] ??= {});
    if (name === "slow") b.slow = Number(value);
    if (name === "fail") b.fail = true;
    if (name === "crash") b.crash = true;
    if (name === "crash-once") b.crashOnce = value;
    if (name === "hang") b.hang = true;
  }
  return out;
}

async function act(step: string, context: StepContext): Promise<void> {
  const b = behaviours()[step] ?? {};
  if (b.crash) process.exit(70);
  if (b.crashOnce && !existsSync(b.crashOnce)) {
    writeFileSync(b.crashOnce, "crashed");
    process.exit(70);
  }
  if (b.hang) await new Promise(() => {});
  if (b.slow) {
    const until = Date.now() + b.slow;
    while (Date.now() < until) {
      context.progress(1 - (until - Date.now()) / b.slow);
      await Bun.sleep(50);
    }
  }
  if (b.fail) throw new EngineError("double_failure", `The ${step} double was told to fail.`, false);
}

/** Seconds of a 16 kHz mono 16-bit WAV, from its size. */
function wavSeconds(path: string): number {
  return (statSync(path).size - 44) / 32_000;
}

export function createEngines(): Engines {
  return {
    transcriber: {
      async transcribe({ wavPath, language, prompt }, context) {
        await act("transcribe", context);
        const scripted = process.env.TEST_ENGINE_TRANSCRIPT;
        if (scripted) {
          const segments = JSON.parse(readFileSync(scripted, "utf8")) as SpeechSegment[];
          context.progress(1);
          return { language: language ?? "en", model: "double-whisper", segments };
        }
        const duration = wavSeconds(wavPath);
        const segments = [];
        // The prompt whisper would have been given (a meeting's vocabulary) is said first, so a
        // test reads in the transcript what reached the engine; without one nothing changes.
        if (prompt) segments.push({ start: 0, end: 0.5, text: ` prompt: ${prompt}`, words: [{ start: 0, end: 0.5, text: ` prompt: ${prompt}` }] });
        for (let start = 0, n = 0; start + 1 <= duration; start += 4, n++) {
          const end = Math.min(duration, start + 3.5);
          const words = ["segment", `number${n}`, "spoken", "here"].map((w, i) => ({
            start: start + (i * (end - start)) / 4,
            end: start + ((i + 1) * (end - start)) / 4,
            text: ` ${w}`,
          }));
          segments.push({ start, end, text: words.map((w) => w.text).join(""), words });
        }
        context.progress(1);
        return { language: language ?? "en", model: "double-whisper", segments };
      },
    },
    diarizer: {
      async diarize({ durationSeconds, maxSpeakers }, context) {
        await act("diarize", context);
        const speakers = Math.max(1, Math.min(maxSpeakers ?? 2, 3));
        const turns = [];
        for (let start = 0, i = 0; start < durationSeconds; start += 8, i++) {
          turns.push({ start, end: Math.min(durationSeconds, start + 8), speaker: i % speakers });
        }
        return turns;
      },
    },
    reporter: {
      async report({ transcript, language }, context) {
        await act("summarize", context);
        const words = transcript.length;
        const structured = {
          title: `Double report of ${words} segments`,
          summary: `A meeting of ${new Set(transcript.map((s) => s.speaker)).size} speaker(s).`,
          key_takeaways: ["The doubles ran end to end."],
          action_items: [{ text: "Replace the doubles with real engines", owner: null, due: null }],
          decisions: [],
          minutes: transcript.slice(0, 3).map((s) => `${s.speaker}: ${s.text}`),
        };
        return {
          title: structured.title,
          markdown: `# ${structured.title}\n\n${structured.summary}\n`,
          structured,
          language,
          model: "double-llm",
          usage: { promptTokens: 40 * transcript.length + 200, completionTokens: 120 },
        };
      },
    },
    entityFinder: {
      // Names as a model would give them: every pair of capitalized words (a sentence's first word
      // and the next one too, as a weak model would), and "<number> <Word> Street|Road|rue <Word>" as
      // an address. Behaviours under the step name "find-entities".
      async find(text, kinds, signal) {
        await act("find-entities", { signal: signal ?? new AbortController().signal, progress: () => {} });
        const found: { kind: "person" | "address"; text: string }[] = [];
        if (kinds.includes("person")) for (const m of text.matchAll(/\b\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+\b/gu)) found.push({ kind: "person", text: m[0] });
        if (kinds.includes("address")) for (const m of text.matchAll(/\b\d{1,4} (?:\p{Lu}\p{Ll}+ )+(?:Street|Road|Lane|Avenue)\b|\b\d{1,4} rue (?:de la |du |des )?\p{Lu}\p{Ll}+\b/gu)) found.push({ kind: "address", text: m[0] });
        return found;
      },
    },
    writer: {
      // A document that shows what it was written from, with the accents a French document has.
      async write({ task, instructions, title, language, meeting, report, transcript }, context) {
        await act("generate", context);
        const heading = title ?? `Document — ${meeting.title}`;
        const markdown = [
          `# ${heading}`,
          "",
          `## Tâche`,
          "",
          task.split("\n")[0]!,
          "",
          "## Éléments",
          "",
          `- Participants : ${meeting.participants.join(", ") || "aucun"}`,
          `- Compte rendu : ${report.split("\n")[0]}`,
          `- Lignes de transcription : ${transcript?.length ?? 0}`,
          ...(instructions ? [`- Consignes : ${instructions}`] : []),
          "",
          "| Point | Détail |",
          "|---|---|",
          "| Réunion | **décisions** et _suivi_ |",
          "",
        ].join("\n");
        context.progress(1);
        return { title: heading, markdown, language, model: "double-llm", usage: { promptTokens: 300 + 40 * (transcript?.length ?? 0), completionTokens: 150 } };
      },
    },
  };
}
