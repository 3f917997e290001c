// What the issue 25 docs slice's browser tests share (v2-docs.test.ts, v2-docs-fr.test.ts): a
// server with engine doubles whose document writer takes a few seconds, one signed-up user, chromium
// at desk and phone sizes, and every URL the pages asked for, none of which may leave the server.
import { afterAll, beforeAll, expect } from "bun:test";
import { join } from "node:path";
import { chromium, devices, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createUserWithKey, ROOT, startServer, type TestServer } from "../helpers/server.ts";

const FIXTURE = join(ROOT, "..", "shared", "fixtures", "meeting-fr-2spk.wav");
const PASSWORD = "correct horse battery";
const EMAIL = "docs@firm.example";

export type Json = any;

export interface DocsWorld {
  server: TestServer;
  key: string;
  newPage(size: keyof typeof VIEWPORTS, locale?: string): Promise<{ context: BrowserContext; page: Page }>;
  uploadMeeting(title: string): Promise<Json>;
  /** URLs asked for outside the server's origin (none expected). */
  foreign(): string[];
  stop(): Promise<void>;
}

export const VIEWPORTS = {
  desk: { viewport: { width: 1280, height: 900 } },
  phone: { ...devices["Pixel 7"] },
} as const;

export async function startDocsWorld(): Promise<DocsWorld> {
  // The document writer takes a few seconds: long enough to see the page while it writes.
  const server = await startServer({
    args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--parallel-slots", "pro=10"],
    env: { TEST_ENGINE_BEHAVIOR: "generate:slow=5000" },
  });
  const key = await createUserWithKey(server, EMAIL);
  const set = await server.admin("user", "password", "--email", EMAIL, "--password", PASSWORD);
  if (set.code !== 0) throw new Error(set.stderr);
  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed");
  const browser: Browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
  const requested: string[] = [];

  const newPage = async (size: keyof typeof VIEWPORTS, locale = "en-GB") => {
    const context = await browser.newContext({ ...VIEWPORTS[size], locale, acceptDownloads: true });
    context.on("request", (request) => requested.push(request.url()));
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await page.locator("input[name=email]").fill(EMAIL);
    await page.locator("input[name=password]").fill(PASSWORD);
    await page.locator("form button[type=submit]").click();
    await page.waitForURL(/\/meetings$/);
    return { context, page };
  };

  const uploadMeeting = async (title: string): Promise<Json> => {
    const form = new FormData();
    form.append("file", Bun.file(FIXTURE), "meeting.wav");
    form.append("title", title);
    const created = (await (await server.api("/api/v1/meetings", { method: "POST", key, body: form })).json()) as Json;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const meeting = (await (await server.api(`/api/v1/meetings/${created.id}`, { key })).json()) as Json;
      if (meeting.status === "completed") return meeting;
      if (Date.now() > deadline || meeting.status === "failed") throw new Error(`meeting ${meeting.status}`);
      await Bun.sleep(100);
    }
  };

  const origin = new URL(server.url).origin;
  return {
    server,
    key,
    newPage,
    uploadMeeting,
    foreign: () => requested.filter((url) => !url.startsWith(origin) && !url.startsWith("blob:") && !url.startsWith("data:")),
    stop: async () => {
      await browser.close();
      await server.stop();
    },
  };
}

/**
 * The file's world, started before its tests and stopped after them, when nothing any page loaded
 * came from another host. Read its fields inside the tests (they exist once beforeAll has run).
 */
export function useDocsWorld(): DocsWorld {
  let world: DocsWorld | undefined;
  beforeAll(async () => {
    world = await startDocsWorld();
  });
  afterAll(async () => {
    const foreign = world?.foreign() ?? [];
    await world?.stop();
    expect(foreign).toEqual([]);
  });
  const started = () => {
    if (!world) throw new Error("the docs world has not started");
    return world;
  };
  return {
    get server() {
      return started().server;
    },
    get key() {
      return started().key;
    },
    newPage: (size, locale) => started().newPage(size, locale),
    uploadMeeting: (title) => started().uploadMeeting(title),
    foreign: () => started().foreign(),
    stop: () => started().stop(),
  };
}
