import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Tool } from "../../src/core/types.js";
import { startServer, type TestServer } from "../helpers/server.js";

// The portal's search box: GET /tools?q= with the visitor's key, results rendered as text.

const KEY = "portal-search-key-0123456789";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const tool = (name: string, description: string): Tool => ({
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string", description: "The record id" } } },
  source: "custom",
  execute: () => Promise.resolve({ output: "ok", isError: false }),
});
const TOOLS = [
  tool("create_invoice", "Create an invoice for a customer"),
  tool("list_pods", "List the pods of a Kubernetes namespace"),
  // An upstream's description that tries to inject markup into the page.
  tool("send_invoice_reminder", 'Remind a customer of an unpaid invoice <img src=x onerror="window.pwned=1">'),
  tool("secret_invoice_export", "Export every invoice (not granted to the key)"),
];

let s: TestServer;
let browser: BrowserContext;
let profile: string;
beforeAll(async () => {
  s = await startServer({
    config: { auth: { apiKeys: [{ id: "dev", key: KEY, tools: ["create_invoice", "list_pods", "send_invoice_reminder"] }] } },
    tools: TOOLS,
    logger: false,
  });
  profile = await mkdtemp(path.join(os.tmpdir(), "toolnexus-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await rm(profile, { recursive: true, force: true });
});

describe("the portal's search box", () => {
  it("is served after the portal script and asks GET /tools?q= (its HTML only as text)", async () => {
    const page = await (await fetch(`${s.url}/docs/`)).text();
    expect(page.indexOf("toolnexus-search.js")).toBeGreaterThan(page.indexOf("toolnexus-portal.js"));
    const script = await (await fetch(`${s.url}/docs/static/theme/toolnexus-search.js`)).text();
    expect(script).toContain('"../tools"');
    expect(script).toContain('searchParams.set("q"');
    // Results are built with textContent: nothing an upstream wrote becomes markup.
    expect(script).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it("in a real browser: finds the key's tools by words, shows HTML as text, never a tool outside the key", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(8000);
    await page.goto(`${s.url}/docs/`);
    await page.locator("button.authorize").first().waitFor();
    await page.locator("button.authorize").first().click();
    await page.locator(".auth-container").first().locator("input").fill(KEY);
    await page.locator(".auth-container").first().locator("button.authorize").click();
    await page.locator(".dialog-ux button.close-modal").click();

    await page.locator('input[aria-label="Search tools"]').fill("invoices for customers");
    const names = page.locator(".toolnexus-search-name");
    await expect.poll(() => names.allInnerTexts()).toContain("create_invoice");
    const listed = await names.allInnerTexts();
    expect(listed).toContain("send_invoice_reminder");
    expect(listed).not.toContain("secret_invoice_export");
    const reminder = page.locator(".toolnexus-search-result").filter({ hasText: "send_invoice_reminder" });
    expect(await reminder.innerText()).toContain('<img src=x onerror="window.pwned=1">');
    expect(await page.locator(".toolnexus-search-results img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();

    // A click opens that tool's operation.
    const op = page.locator(".opblock").filter({ has: page.locator('.opblock-summary-path[data-path="/tools/create_invoice/execute"]') });
    expect(await op.getAttribute("class")).not.toContain("is-open");
    await page.locator(".toolnexus-search-result").filter({ hasText: "create_invoice" }).click();
    await expect.poll(() => op.getAttribute("class")).toContain("is-open");

    await page.locator('input[aria-label="Search tools"]').fill("zzzzqqqq");
    await expect.poll(() => page.locator(".toolnexus-search-status").innerText()).toBe("No tool matches.");
    await page.close();
  }, 60_000);
});
