import { SERVE_OPTIONS, serviceConfig } from "../config.ts";
import { startService } from "../service.ts";
import type { Command } from "./admin.ts";

export const serveCommand: Command = {
  usage: "verbatim serve [--host 127.0.0.1] [--port 8080] [--data-dir ./data] [--models-dir ./models] [options]",
  summary: "Run the API server, applying pending database migrations first. Stops cleanly on SIGTERM or SIGINT.",
  options: SERVE_OPTIONS,
  async run(values, out) {
    const config = serviceConfig(values);
    const service = await startService(config, {
      say: out,
      logError: (error, requestId) =>
        console.error(JSON.stringify({ time: new Date().toISOString(), level: "error", request_id: requestId, error: String((error as Error)?.stack ?? error) })),
    });
    await new Promise<void>((resolve) => {
      const shutdown = (signal: string) => {
        out(`${signal} received: finishing in-flight requests`);
        service.stop().then(() => {
          out("stopped");
          resolve();
        });
      };
      process.once("SIGTERM", () => shutdown("SIGTERM"));
      process.once("SIGINT", () => shutdown("SIGINT"));
    });
  },
};
