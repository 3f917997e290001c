/**
 * node-llama-cpp behind a small interface: load once (prebuilt binaries only, never a build or a
 * download), count tokens, build JSON-schema grammars, and run one grammar-constrained chat turn
 * on a reused context sequence with explicit threads.
 */
import type {
  ChatHistoryItem,
  ChatWrapper,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaLogLevel,
  LlamaModel,
} from "node-llama-cpp";
import { lazy, type Lazy } from "../lazy.ts";
import { modelFile, type ModelSource } from "../model-file.ts";
import { importNative, letForkedScriptsRun } from "../native.ts";
import { EngineError } from "../types.ts";
import type { Prompt } from "./prompt.ts";
import { reportJsonSchema, type ReportLimits } from "./schema.ts";

/** What the report logic needs of a grammar: the parse step (node-llama-cpp's grammar.parse). */
export interface ReportGrammar {
  parse(text: string): unknown;
}

export interface GenerateOptions {
  grammar: ReportGrammar;
  maxTokens: number;
  temperature: number;
  seed: number;
  signal: AbortSignal;
  /** Called with the number of tokens generated so far. */
  onTokens?: (generated: number) => void;
}

export interface Generation {
  text: string;
  stopReason: string;
  /** Tokens in the prompt (with the chat template) and tokens generated. */
  promptTokens: number;
  outputTokens: number;
  ms: number;
}

export interface LlmRuntime {
  readonly contextSize: number;
  readonly gpu: string | false;
  readonly threads: number;
  countTokens(text: string): number;
  /** Exact tokens of the prompt as the chat template lays it out, up to where the answer starts. */
  countPromptTokens(prompt: Prompt): number;
  grammarFor(limits: ReportLimits): Promise<ReportGrammar>;
  /** A grammar for any JSON schema (the documents' answers); cached like the report's. */
  jsonGrammar(schema: object): Promise<ReportGrammar>;
  /** One chat turn under the grammar. When `signal` aborts, it stops and returns with stopReason "abort". */
  generate(prompt: Prompt, options: GenerateOptions): Promise<Generation>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  modelPath: ModelSource;
  threads: number;
  gpu: "auto" | false;
  /** Tokens of context; defaults to the model's training context, at most 8192. */
  contextSize?: number;
}

type NodeLlamaCpp = typeof import("node-llama-cpp");

/** node-llama-cpp, loaded on first use so that importing this module never loads llama.cpp. */
const library = lazy(async () => {
  letForkedScriptsRun();
  return importNative<NodeLlamaCpp>("node-llama-cpp");
});

const llamas = new Map<string, Lazy<Llama>>();
const recentLogs: string[] = [];

function logger(level: LlamaLogLevel, message: string): void {
  recentLogs.push(`${level}: ${message.trim()}`);
  if (recentLogs.length > 20) recentLogs.shift();
  if (level === "fatal" || level === "error") console.error(`[llama.cpp] ${message.trim()}`);
}

/**
 * One Llama instance per GPU choice for the whole process (llama.cpp's logger and backend are
 * process-wide). It puts no cap on threads (maxThreads 0), so each context uses exactly the
 * threads it is given.
 */
async function llamaFor(gpu: "auto" | false, cpuReason = "--gpu off"): Promise<Llama> {
  const key = String(gpu);
  let llama = llamas.get(key);
  if (!llama) {
    llama = lazy(async () => {
      const { getLlama } = await library();
      const base = {
        build: "never",
        usePrebuiltBinaries: true,
        skipDownload: true,
        progressLogs: false,
        logLevel: "error" as LlamaLogLevel,
        logger,
        maxThreads: 0,
      } as const;
      if (gpu === false) {
        // The operator's log says which build runs, and why not a GPU one.
        process.stderr.write(`llama.cpp: CPU build (${cpuReason})\n`);
        return getLlama({ ...base, gpu: false });
      }
      let why = "no GPU build loads here";
      try {
        // node-llama-cpp tries CUDA first, then Vulkan, then Metal.
        const gpuLlama = await getLlama({ ...base, gpu: "auto" });
        const devices = gpuLlama.gpu === false ? [] : await gpuLlama.getGpuDeviceNames();
        if (gpuLlama.gpu !== false && devices.length > 0) {
          process.stderr.write(`llama.cpp: ${gpuLlama.gpu} build on ${devices.join(", ")}\n`);
          return gpuLlama;
        }
        // A GPU build without a usable device (e.g. the Vulkan build on a machine without a GPU)
        // would only add overhead: use the plain CPU build (the one shared instance) instead.
        why = gpuLlama.gpu === false ? "no GPU build loads here" : `the ${gpuLlama.gpu} build finds no device`;
        await gpuLlama.dispose();
      } catch {
        // no working GPU build: use the CPU one
      }
      return llamaFor(false, why);
    });
    llamas.set(key, llama);
  }
  return llama();
}

function lastLogs(): string {
  return recentLogs.length ? ` (${recentLogs.slice(-3).join(" | ")})` : "";
}

export async function loadLlamaRuntime(options: RuntimeOptions): Promise<LlmRuntime> {
  const file = modelFile(options.modelPath);
  const threads = Math.max(1, Math.floor(options.threads));
  let llama: Llama;
  try {
    llama = await llamaFor(options.gpu);
  } catch (error) {
    throw new EngineError("engine_unavailable", "llama.cpp could not start.", false, { detail: (error as Error).message });
  }
  let model: LlamaModel;
  recentLogs.length = 0;
  try {
    model = await llama.loadModel({ modelPath: file.path });
  } catch (error) {
    throw new EngineError("model_invalid", `llama.cpp could not load the LLM model ${file.name}.`, false, {
      detail: `${(error as Error).message}${lastLogs()}`,
    });
  }
  let context: LlamaContext;
  try {
    const contextSize = options.contextSize ?? Math.min(model.trainContextSize || 4096, 8192);
    context = await model.createContext({
      contextSize,
      sequences: 1,
      threads: { ideal: threads, min: threads },
      failedCreationRemedy: false,
    });
  } catch (error) {
    await model.dispose();
    throw new EngineError("llm_context_failed", "llama.cpp could not create a context for the report model.", false, {
      detail: `${(error as Error).message}${lastLogs()}`,
    });
  }
  return new NodeLlamaRuntime(await library(), llama, model, context, threads);
}

class NodeLlamaRuntime implements LlmRuntime {
  private readonly sequence: LlamaContextSequence;
  private readonly chatWrapper: ChatWrapper;
  private readonly grammars = new Map<string, Promise<ReportGrammar>>();

  constructor(
    private readonly lib: NodeLlamaCpp,
    private readonly llama: Llama,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    readonly threads: number,
  ) {
    this.sequence = context.getSequence();
    this.chatWrapper = lib.resolveChatWrapper(model);
  }

  get contextSize(): number {
    return this.context.contextSize;
  }

  get gpu(): string | false {
    return this.llama.gpu;
  }

  countTokens(text: string): number {
    return this.model.tokenize(text).length;
  }

  private history(prompt: Prompt): ChatHistoryItem[] {
    return [
      ...this.chatWrapper.generateInitialChatHistory({ systemPrompt: prompt.system }),
      { type: "user", text: prompt.user },
      { type: "model", response: [] },
    ];
  }

  countPromptTokens(prompt: Prompt): number {
    const { contextText } = this.chatWrapper.generateContextState({ chatHistory: this.history(prompt) });
    return contextText.tokenize(this.model.tokenizer).length;
  }

  grammarFor(limits: ReportLimits): Promise<ReportGrammar> {
    return this.jsonGrammar(reportJsonSchema(limits));
  }

  jsonGrammar(schema: object): Promise<ReportGrammar> {
    const key = JSON.stringify(schema);
    let grammar = this.grammars.get(key);
    if (!grammar) {
      if (this.grammars.size >= 16) this.grammars.delete(this.grammars.keys().next().value!);
      // The schemas are ours (schema.ts, document-schema.ts), built for this function.
      grammar = this.llama.createGrammarForJsonSchema(schema as Parameters<Llama["createGrammarForJsonSchema"]>[0]);
      this.grammars.set(key, grammar);
      grammar.catch(() => this.grammars.delete(key));
    }
    return grammar;
  }

  async generate(prompt: Prompt, options: GenerateOptions): Promise<Generation> {
    const started = performance.now();
    const promptTokens = this.countPromptTokens(prompt);
    const session = new this.lib.LlamaChatSession({
      contextSequence: this.sequence,
      chatWrapper: this.chatWrapper,
      systemPrompt: prompt.system,
      autoDisposeSequence: false,
    });
    let generated = 0;
    try {
      const result = await session.promptWithMeta(prompt.user, {
        // The grammars come from grammarFor, so they are node-llama-cpp's.
        grammar: options.grammar as unknown as LlamaGrammar,
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        seed: options.seed,
        signal: options.signal,
        stopOnAbortSignal: true,
        onToken: (tokens) => {
          generated += tokens.length;
          options.onTokens?.(generated);
        },
      });
      return {
        text: result.responseText,
        stopReason: options.signal.aborted ? "abort" : result.stopReason,
        promptTokens,
        outputTokens: generated,
        ms: performance.now() - started,
      };
    } catch (error) {
      if (options.signal.aborted) {
        return { text: "", stopReason: "abort", promptTokens, outputTokens: generated, ms: performance.now() - started };
      }
      throw error;
    } finally {
      session.dispose({ disposeSequence: false });
      await this.sequence.clearHistory();
    }
  }

  async close(): Promise<void> {
    if (!this.sequence.disposed) this.sequence.dispose();
    await this.context.dispose();
    await this.model.dispose();
  }
}
