import { SERVE_OPTIONS } from "../config-options.ts";
import { serviceConfig } from "../config.ts";
import type { startService } from "../service.ts";
import { DataDirInUse } from "../db/data-dir-lock.ts";
import type { Command } from "./admin.ts";
import { CommandFailed } from "./options.ts";

export const serveCommand: Command = {
  usage: "verbatim serve [--host 127.0.0.1] [--port 8080] [--data-dir ./data] [--models-dir ./models] [options]",
  summary:
    "Run the API server, applying pending database migrations first. Stops cleanly on SIGTERM or SIGINT.\n\n" +
    "The compiled executable loads its native engines (whisper.cpp, sherpa-onnx, llama.cpp) from node_modules\n" +
    "beside it or one folder up, or from the folder named by env VERBATIM_NATIVE_MODULES.",
  options: SERVE_OPTIONS,
  async run(values, out) {
    const config = serviceConfig(values);
    // Listen for signals before starting: a SIGTERM right after the listening line must still
    // stop the service cleanly rather than kill it.
    const signal = new Promise<string>((resolve) => {
      process.once("SIGTERM", () => resolve("SIGTERM"));
      process.once("SIGINT", () => resolve("SIGINT"));
    });
    let service: Awaited<ReturnType<typeof startService>>;
    try {
      // The service's modules are loaded here, not when the executable starts: an admin command
      // (a process each) then parses only its own (see src/main.ts).
      const { startService } = await import("../service.ts");
      service = await startService(config, {
        say: out,
        logWarning: (message, requestId) =>
          console.error(JSON.stringify({ time: new Date().toISOString(), level: "warn", request_id: requestId, message })),
        logError: (error, requestId) =>
          console.error(
            JSON.stringify({
              time: new Date().toISOString(),
              level: "error",
              request_id: requestId,
              error: String((error as Error)?.stack ?? error),
            }),
          ),
      });
    } catch (error) {
      if (error instanceof DataDirInUse) throw new CommandFailed(error.message);
      throw error;
    }
    out(`${await signal} received: finishing in-flight requests`);
    await service.stop();
    out("stopped");
  },
};
