// Issue 25 item 1, one error layer, in chromium at desk and phone sizes: a path that is no page is
// the HTML 404 page in the app's frame (the API's paths keep their problem+json), a failure is the
// 500 page with its request id (logged, never a stack), a refused form comes back to its page
// (post/redirect/get) with what was typed and a plain message at the field, a new API key is
// shown once and a reload makes no second one, and Revoke / Rotate / Delete ask first (the
// browser's confirm() with the script, a box to tick without it).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sql } from "drizzle-orm";
import { chromium, devices, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import { queryExec, queryRow } from "../helpers/query.ts";
import { createUserWithKey, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(90_000);

const PASSWORD = "correct horse battery";
type Json = any;

let server: TestServer;
let browser: Browser;
/** Every URL a page asked for: none may leave the server's origin. */
const requested: string[] = [];
const keys = new Map<string, string>();

beforeAll(async () => {
  // 127.0.0.1 is a webhook address this server may reach; 10.0.0.0/8 is not.
  server = await startServer({ args: ["--engines", "test/doubles/engines.ts", "--rate-limits", "pro=100000,anonymous=100000", "--egress-allow", "127.0.0.1"] });
  for (const size of ["desk", "phone"]) {
    const email = `${size}@firm.example`;
    keys.set(size, await createUserWithKey(server, email));
    await server.admin("user", "password", "--email", email, "--password", PASSWORD);
  }
  const executablePath = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!executablePath) throw new Error("chromium is not installed: run npm run setup (it installs Debian's chromium)");
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function signIn(page: Page, email: string) {
  await page.goto(`${server.url}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await submit(page, page.getByRole("button", { name: "Sign in" }));
}

/** Clicks a form's button and waits for the page it leads to (the same URL after a refusal: post/redirect/get). */
async function submit(page: Page, button: ReturnType<Page["getByRole"]>) {
  const arrived = page.waitForNavigation();
  await button.click();
  await arrived;
}

const SIZES: [string, BrowserContextOptions][] = [
  ["desk", { viewport: { width: 1280, height: 900 } }],
  ["phone", { ...devices["Pixel 7"] }],
];

for (const [size, options] of SIZES) {
  describe(`one error layer (${size})`, () => {
    const email = `${size}@firm.example`;
    const api = (path: string, init: RequestInit = {}) => server.api(path, { ...init, key: keys.get(size)! });
    let page: Page;

    beforeAll(async () => {
      const context = await browser.newContext({ ...options, locale: "en-GB" });
      context.on("request", (request) => requested.push(request.url()));
      page = await context.newPage();
    });
    afterAll(() => page.context().close());

    test("a path that is no page is the HTML 404 page in the app's frame, signed out and in; the API keeps its JSON", async () => {
      const signedOut = await page.goto(`${server.url}/meetingsx/nothing-here`);
      expect(signedOut!.status()).toBe(404);
      expect(signedOut!.headers()["content-type"]).toContain("text/html");
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Not found");
      expect(await page.locator("header nav").count()).toBe(0);
      await expect(page.getByRole("link", { name: "Sign in" }).count()).resolves.toBe(1);

      await signIn(page, email);
      const signedIn = await page.goto(`${server.url}/no/such/page`);
      expect(signedIn!.status()).toBe(404);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Not found");
      expect(await page.locator("header nav").getByRole("link", { name: "Meetings" }).count()).toBe(1);
      await page.getByRole("link", { name: "Back to your meetings" }).click();
      await page.waitForURL(/\/meetings$/);

      const apiMiss = await server.api("/api/v1/no-such-thing");
      expect(apiMiss.status).toBe(404);
      expect(apiMiss.headers.get("content-type")).toContain("application/problem+json");
    });

    test("an empty text submission comes back to the form: the title kept, “Paste some text first” at the field; a reload shows the plain form", async () => {
      await page.goto(`${server.url}/meetings/new`);
      const form = page.locator('form[action="/meetings/text"]');
      await form.getByLabel("Title").fill("Ward 4 review");
      await submit(page, form.getByRole("button", { name: "Create the meeting from this text" }));
      expect(await page.title()).not.toContain("Not allowed");
      expect(await page.content()).not.toContain("Invalid request");
      const text = form.getByLabel("Transcript", { exact: true });
      expect(await text.getAttribute("aria-invalid")).toBe("true");
      const described = (await text.getAttribute("aria-describedby"))!;
      expect(await page.locator(`#${described}`).textContent()).toBe("Paste some text first");
      expect(await form.getByLabel("Title").inputValue()).toBe("Ward 4 review");
      // The upload form above is not the refused one.
      expect(await page.locator("form#upload").getByLabel("Title").inputValue()).toBe("");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("text");

      await page.reload();
      expect(await form.getByLabel("Title").inputValue()).toBe("");
      expect(await page.locator(".field-error:not([hidden])").count()).toBe(0);

      // Filled in, it makes the meeting.
      await form.getByLabel("Title").fill("Ward 4 review");
      await text.fill("Alice: the ward reopens on Monday.\nBob: agreed.");
      await submit(page, form.getByRole("button", { name: "Create the meeting from this text" }));
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Ward 4 review");
    });

    test("an unexpected failure is the 500 page with the request id, logged; never a stack or a path", async () => {
      // A malformed state the pages cannot draw: a meeting whose status is none the app knows.
      const created = (await (await api("/api/v1/meetings?limit=1")).json()) as Json;
      const id = created.data[0].id as string;
      // Off the meeting's page (its progress script reloads it while the report is written), once it is done.
      await page.goto(`${server.url}/meetings`);
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(200)) {
        if ((((await (await api(`/api/v1/meetings/${id}`)).json()) as Json).status as string) === "completed") break;
      }
      await queryExec(server, sql`UPDATE meetings SET status = 'garbled' WHERE id = ${id}`);
      const answer = await page.goto(`${server.url}/meetings/${id}`);
      expect(answer!.status()).toBe(500);
      const requestId = answer!.headers()["x-request-id"]!;
      expect(requestId).toBeTruthy();
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Something went wrong");
      expect(await page.locator("[data-request-id]").textContent()).toContain(requestId);
      const body = await page.content();
      expect(body).not.toMatch(/TypeError|at .*\.tsx?:\d+|\/src\//);
      expect(await page.locator("header nav").count()).toBe(1);
      await Bun.sleep(100);
      expect(server.errorLines.some((line) => line.includes(requestId))).toBe(true);
      await queryExec(server, sql`UPDATE meetings SET status = 'completed' WHERE id = ${id}`);
    });

    test("a webhook URL the server may not reach comes back with the URL kept and a plain message; a reachable one shows its secret once", async () => {
      await page.goto(`${server.url}/settings/webhooks`);
      const form = page.locator('form[action="/settings/webhooks"]');
      await form.getByLabel("URL (https)").fill("https://10.0.0.7/hooks/verbatim");
      await form.getByLabel("Description").fill("Intranet");
      await submit(page, form.getByRole("button", { name: "Add the endpoint" }));
      const url = form.getByLabel("URL (https)");
      expect(await url.inputValue()).toBe("https://10.0.0.7/hooks/verbatim");
      expect(await form.getByLabel("Description").inputValue()).toBe("Intranet");
      expect(await url.getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator(`#${await url.getAttribute("aria-describedby")}`).textContent()).toBe("This address is not reachable from the server: use a public https URL");

      await url.fill("https://127.0.0.1:9/hooks/verbatim");
      await submit(page, form.getByRole("button", { name: "Add the endpoint" }));
      const secret = await page.locator("#shown-once").inputValue();
      expect(secret).toMatch(/^whsec_/);
      await page.reload();
      expect(await page.locator("#shown-once").count()).toBe(0);
      expect(await page.content()).not.toContain(secret);
      expect(((await (await api("/api/v1/webhook_endpoints")).json()) as Json).data).toHaveLength(1);
    });

    test("Rotate the secret and Delete ask first: dismissed, nothing happens; accepted, it is done (and shown once)", async () => {
      const [endpoint] = ((await (await api("/api/v1/webhook_endpoints")).json()) as Json).data;
      await page.goto(`${server.url}/settings/webhooks`);
      // With the script the box is hidden: the browser asks instead.
      expect(await page.locator("[data-confirm-box]").first().isHidden()).toBe(true);
      let asked = "";
      page.once("dialog", (dialog) => ((asked = dialog.message()), dialog.dismiss()));
      await page.getByRole("button", { name: "Rotate the secret" }).click();
      await Bun.sleep(300);
      expect(asked).toContain("Rotate the secret of https://127.0.0.1:9/hooks/verbatim?");
      expect(page.url()).toBe(`${server.url}/settings/webhooks`);
      expect(await page.locator("#shown-once").count()).toBe(0);

      page.once("dialog", (dialog) => dialog.accept());
      await page.getByRole("button", { name: "Rotate the secret" }).click();
      await page.locator("#shown-once").waitFor();
      expect(await page.locator("#shown-once").inputValue()).toMatch(/^whsec_/);

      page.once("dialog", (dialog) => dialog.dismiss());
      await page.getByRole("button", { name: `Delete the endpoint ${endpoint.url}` }).click();
      await Bun.sleep(300);
      expect(((await (await api("/api/v1/webhook_endpoints")).json()) as Json).data).toHaveLength(1);
      page.once("dialog", (dialog) => dialog.accept());
      await page.getByRole("button", { name: `Delete the endpoint ${endpoint.url}` }).click();
      await page.waitForURL(/notice=deleted/);
      expect(((await (await api("/api/v1/webhook_endpoints")).json()) as Json).data).toHaveLength(0);
    });

    test("a new API key is shown once after a redirect: a reload makes no second key and shows it no more; Revoke asks first", async () => {
      const named = async (name: string) => Number((await queryRow<{ n: number | string }>(server, sql`SELECT count(*) AS n FROM api_keys WHERE name = ${name}`))!.n);
      await page.goto(`${server.url}/settings/developers`);
      const form = page.locator('form[action="/settings/developers/keys"]');
      // No name: the form comes back, the message at the field.
      await form.getByRole("button", { name: "Create the key" }).evaluate((button) => (button.closest("form")!.noValidate = true));
      await submit(page, form.getByRole("button", { name: "Create the key" }));
      expect(await form.getByLabel("Name").getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator("#error-name").textContent()).toBe("Give the key a name");

      await form.getByLabel("Name").fill(`Laptop ${size}`);
      await submit(page, form.getByRole("button", { name: "Create the key" }));
      const key = await page.locator("#shown-once").inputValue();
      expect(key.length).toBeGreaterThan(20);
      expect(page.url()).not.toContain(key);
      await page.reload();
      expect(await page.locator("#shown-once").count()).toBe(0);
      expect(await page.content()).not.toContain(key);
      // One key made (the reload made none), and it works with the API.
      expect(await named(`Laptop ${size}`)).toBe(1);
      expect((await server.api("/api/v1/me", { key })).status).toBe(200);
      expect(server.lines.some((line) => line.includes(key))).toBe(false);

      const revoke = page.getByRole("button", { name: `Revoke the key Laptop ${size}` });
      page.once("dialog", (dialog) => dialog.dismiss());
      await revoke.click();
      await Bun.sleep(300);
      expect(await revoke.count()).toBe(1);
      page.once("dialog", (dialog) => dialog.accept());
      await revoke.click();
      await page.waitForURL(/notice=revoked/);
      expect(await revoke.count()).toBe(0);
    });

    test("without the script, a confirmation is a box to tick: unticked, the browser does not send; the server refuses a post without it", async () => {
      const context = await browser.newContext({ ...options, locale: "en-GB", javaScriptEnabled: false });
      context.on("request", (request) => requested.push(request.url()));
      const plain = await context.newPage();
      await signIn(plain, email);
      await plain.goto(`${server.url}/settings/developers`);
      const form = plain.locator('form[action="/settings/developers/keys"]');
      await form.getByLabel("Name").fill(`Script-free ${size}`);
      await submit(plain, form.getByRole("button", { name: "Create the key" }));
      expect(await plain.locator("#shown-once").inputValue()).toBeTruthy();
      const row = plain.locator("tr", { hasText: `Script-free ${size}` });
      const box = row.getByLabel("I understand: apps using this key stop working");
      expect(await box.isVisible()).toBe(true);
      await box.check();
      await row.getByRole("button", { name: `Revoke the key Script-free ${size}` }).click();
      await plain.waitForURL(/notice=revoked/);
      expect(await plain.locator("tr", { hasText: `Script-free ${size}` }).count()).toBe(0);
      await context.close();
    });

    test("nothing any page asked for left the server's origin", () => {
      expect(requested.length).toBeGreaterThan(0);
      for (const url of requested) expect(new URL(url).origin).toBe(server.url);
    });
  });
}
