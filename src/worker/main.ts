import { loadEngines } from "../engines/load.ts";
import { serialQueue } from "../engines/serial.ts";
import { EngineError, type Engines } from "../engines/types.ts";
import { JOB_ERROR_CATALOGUE } from "../errors/job-codes.ts";
import { readWorkerConfig } from "./config.ts";
import { failureOf, serverDirs } from "./failure.ts";
import type { FromWorker, ToWorker } from "./protocol.ts";
import { runStep } from "./steps.ts";

/**
 * The worker process: loads the engines and their models once, before it says it is ready, then
 * runs one step at a time as the service asks, keeping the models loaded from job to job.
 * It is killed, not asked, to stop: a native engine may not return to JavaScript in time.
 */
export async function runWorker(): Promise<void> {
  const config = readWorkerConfig(process.env);
  const send = (message: FromWorker) => process.send!(message);
  let engines: Engines | undefined;
  let engineLoadError: Error | undefined;
  try {
    engines = await loadEngines(config);
  } catch (error) {
    engineLoadError = error as Error;
  }
  // Every model now, not inside the first job. One that fails is only logged: the steps that
  // need it load it again and fail with its error, and the others still run.
  for (const failure of (await engines?.preload?.()) ?? []) {
    console.error(JSON.stringify({ time: new Date().toISOString(), level: "warn", message: `a model did not load at the worker's start: ${failure.stack ?? failure.message}` }));
  }

  // One step at a time: the engines hold one model instance each.
  const steps = serialQueue();
  process.on("message", (message: ToWorker) => {
    if (message.type !== "run") return;
    const { input } = message;
    void steps.run(async () => {
      const controller = new AbortController();
      let lastSent = 0;
      const context = {
        signal: controller.signal,
        progress(fraction: number) {
          const now = Date.now();
          if (now - lastSent < 250 && fraction < 1) return;
          lastSent = now;
          send({ type: "progress", runId: input.runId, fraction });
        },
      };
      try {
        if (!engines) {
          // The module's own words (an engine path, a stack) are for the operator's log only.
          throw new EngineError("engine_load_failed", JOB_ERROR_CATALOGUE.engine_load_failed.message, false, {
            detail: engineLoadError?.stack ?? engineLoadError?.message ?? String(engineLoadError),
          });
        }
        const result = await runStep(input, engines, config, context);
        send({ type: "done", runId: input.runId, result });
      } catch (error) {
        send({ type: "failed", runId: input.runId, ...failureOf(error, serverDirs(input.storageDir, config.modelsDir)) });
      }
    });
  });
  // The service is gone (stopped or crashed): stop with everything this worker started (ffmpeg).
  process.on("disconnect", () => {
    try {
      process.kill(-process.pid, "SIGKILL");
    } catch {
      process.exit(0);
    }
  });
  send({ type: "ready" });
  await new Promise(() => {}); // serve until killed or disconnected
}
