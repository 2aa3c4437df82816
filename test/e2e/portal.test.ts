import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.js";
import { testTools } from "../helpers/tools.js";

const KEY = "portal-key-0123456789abcdef";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
let s: TestServer;
/** The same tools with no credential configured, as `npm start` serves its example. */
let open: TestServer;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  s = await startServer({
    config: { bundles: { maths: { tools: ["divide"] } }, auth: { apiKeys: [{ id: "dev", key: KEY, tools: ["echo", "divide"] }] } },
    tools: testTools(),
  });
  open = await startServer({ config: { bundles: { maths: { tools: ["divide"] } } }, tools: testTools() });
  // A fresh profile per run: nothing cached or remembered from an earlier one.
  profile = await mkdtemp(path.join(os.tmpdir(), "toolnexus-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await open?.close();
  await rm(profile, { recursive: true, force: true });
});

/** Opens an operation, runs it with its example body unedited, and checks the 200 and its body. */
async function runsExampleBody(op: Locator): Promise<void> {
  await op.locator(".opblock-summary").click();
  await op.locator("button.execute").click();
  const status = op.locator(".live-responses-table .response .response-col_status").first();
  await expect.poll(() => status.innerText()).toContain("200");
  const body = await op.locator(".live-responses-table .response-col_description pre").first().innerText();
  expect(JSON.parse(body)).toEqual({ output: "string", isError: false });
}

describe("developer portal at /docs", () => {
  it("serves the page, its assets and the generic document without a key, and no tool name", async () => {
    for (const p of ["/docs", "/docs/", "/docs/static/swagger-ui-bundle.js", "/docs/static/theme/toolnexus-portal.js", "/docs/json"]) {
      const res = await fetch(`${s.url}${p}`, { redirect: "manual" });
      expect(res.status, p).toBeLessThan(400);
      // Read to the end: an unread 1 MB bundle keeps its connection busy, and close() waits for it.
      await res.arrayBuffer();
    }
    const doc = await (await fetch(`${s.url}/docs/json`)).text();
    expect(doc).toContain("/tools/{name}/execute");
    expect(doc).not.toMatch(/echo|divide/);
    // It says what Authorize would show.
    expect((JSON.parse(doc) as { info: { description?: string } }).info.description).toMatch(
      /^\*\*Sign in with a key to see the tools it may use\*\*/,
    );
  });

  it("lists a keyed caller's tools first, above the generic routes, without the sign-in line", async () => {
    const doc = (await (await fetch(`${s.url}/docs/json`, { headers: { "x-api-key": KEY } })).json()) as {
      info: { description?: string };
      tags: { name: string }[];
    };
    expect(doc.tags[0]?.name).toMatch(/^source:/);
    expect(doc.tags.findIndex((t) => !t.name.startsWith("source:"))).toBeGreaterThan(0);
    expect(doc.info.description ?? "").not.toContain("Sign in");
  });

  it("gives a caller that sends its key its own per-tool document; a wrong key is 401", async () => {
    const doc = (await (await fetch(`${s.url}/docs/json`, { headers: { "x-api-key": KEY } })).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/tools/echo/execute", "/tools/divide/execute"]));
    expect(Object.keys(doc.paths)).not.toContain("/tools/explode/execute");
    expect((await fetch(`${s.url}/docs/json`, { headers: { authorization: "Bearer wrong-key-0123456789abcdef" } })).status).toBe(401);
  });

  it("in a real browser: shows the generic routes, after Authorize runs a tool with its example body, after Logout hides it again", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(8000);
    const external: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(s.url)) external.push(r.url());
    });
    await withScreenshotOnFailure(page, async () => {
      await page.goto(`${s.url}/docs/`);
      await page.locator(".opblock").first().waitFor();
      await expect.poll(() => page.locator(".opblock-summary-path").allInnerTexts()).toContain("/tools/{name}/execute");
      expect(await page.content()).not.toContain("/tools/echo/execute");

      await page.locator("button.authorize").first().click();
      const bearer = page.locator(".auth-container").first();
      await bearer.locator("input").fill(KEY);
      await bearer.locator("button.authorize").click();
      await page.locator(".dialog-ux button.close-modal").click();

      // The per-caller document replaces the generic one: its tools, not the others.
      const echo = page.locator(".opblock").filter({ has: page.locator('.opblock-summary-path[data-path="/tools/echo/execute"]') });
      await echo.waitFor();
      expect(await page.locator('.opblock-summary-path[data-path="/tools/explode/execute"]').count()).toBe(0);

      // The example body, sent unedited.
      await runsExampleBody(echo);
      await page.screenshot({ path: ".tmp/portal.png", fullPage: true });

      // Logout: back to the generic routes.
      await page.locator("button.authorize").first().click();
      await page.locator(".auth-container").first().locator("button", { hasText: "Logout" }).click();
      await page.locator(".dialog-ux button.close-modal").click();
      await expect.poll(() => page.locator('.opblock-summary-path[data-path="/tools/echo/execute"]').count()).toBe(0);
      await expect.poll(() => page.locator(".opblock-summary-path").allInnerTexts()).toContain("/tools/{name}/execute");
    });
    expect(external).toEqual([]);
    await page.close();
  }, 60_000);
});

describe("developer portal at /docs with no credential configured", () => {
  it("serves the document of every tool, as /openapi.json does", async () => {
    const paths = async (p: string) => Object.keys(((await (await fetch(`${open.url}${p}`)).json()) as { paths: object }).paths);
    const docPaths = await paths("/docs/json");
    for (const name of testTools().map((t) => t.name)) expect(docPaths).toContain(`/tools/${name}/execute`);
    expect(docPaths.sort()).toEqual((await paths("/openapi.json")).sort());
  });

  it("narrows the document to a bundle with ?bundle=, as /openapi.json does", async () => {
    const paths = async (p: string) => Object.keys(((await (await fetch(`${open.url}${p}`)).json()) as { paths: object }).paths);
    const docPaths = await paths("/docs/json?bundle=maths");
    expect(docPaths).toContain("/tools/divide/execute");
    expect(docPaths).not.toContain("/tools/echo/execute");
    expect(docPaths.sort()).toEqual((await paths("/openapi.json?bundle=maths")).sort());
  });

  it("in a real browser: lists every tool and runs one with its example body, without Authorize", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(8000);
    await withScreenshotOnFailure(page, async () => {
      await page.goto(`${open.url}/docs/`);
      const echo = page.locator(".opblock").filter({ has: page.locator('.opblock-summary-path[data-path="/tools/echo/execute"]') });
      await echo.waitFor();
      const listed = await page.locator(".opblock-summary-path").allInnerTexts();
      for (const name of testTools().map((t) => t.name)) expect(listed).toContain(`/tools/${name}/execute`);
      // Nothing to authorize: the document declares no security.
      expect(await page.locator("button.authorize").count()).toBe(0);

      await runsExampleBody(echo);
      await page.screenshot({ path: ".tmp/portal-open.png", fullPage: true });
    });
    await page.close();
  }, 60_000);
});

describe("developer portal of a bundle (/docs/?bundle=)", () => {
  it("in a real browser: after Authorize shows only the bundle's tools", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(8000);
    await withScreenshotOnFailure(page, async () => {
      await page.goto(`${s.url}/docs/?bundle=maths`);
      await page.locator(".opblock").first().waitFor();
      await page.locator("button.authorize").first().click();
      await page.locator(".auth-container").first().locator("input").fill(KEY);
      await page.locator(".auth-container").first().locator("button.authorize").click();
      await page.locator(".dialog-ux button.close-modal").click();
      await page.locator('.opblock-summary-path[data-path="/tools/divide/execute"]').waitFor();
      expect(await page.locator('.opblock-summary-path[data-path="/tools/echo/execute"]').count()).toBe(0);
    });
    await page.close();
  }, 60_000);
});

/** Runs the steps; when one fails, keeps what the page showed as a CI artifact under .tmp/. */
async function withScreenshotOnFailure(page: Page, steps: () => Promise<void>): Promise<void> {
  await mkdir(".tmp", { recursive: true });
  try {
    await steps();
  } catch (err) {
    await page.screenshot({ path: ".tmp/portal-failed.png", fullPage: true });
    throw err;
  }
}
