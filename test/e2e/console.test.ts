import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil, acceptedExecution, submit } from "../helpers/executions.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { testTools } from "../helpers/tools.js";
import { eventually } from "../helpers/wait.js";

// The operator console at /admin in Debian's Chromium (one launch, a few pages): sign-in, a failed
// source, a pin approved, an execution cancelled, the audit tail live, and an upstream tool
// whose description and arguments carry markup shown as text on the console and on /docs.
const MUTABLE = fileURLToPath(new URL("../fixtures/mcp/mutable-server.mjs", import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OPS = "console-e2e-ops-0123456789abcdef";
const TEAM = "console-e2e-team-0123456789abcdef";
const team = { authorization: `Bearer ${TEAM}` };
// Each would set a flag on `window` (or open a dialog) if it ever ran.
const SCRIPT = "<script>window.__xss='script';alert('script')</script>";
const IMG = "<img src=x onerror=\"window.__xss='img';alert('img')\">";
// The screenshots of docs/operating.md: refreshed with UPDATE_SCREENSHOTS=1, else kept under .tmp/.
const SHOTS = process.env.UPDATE_SCREENSHOTS ? "docs/images" : ".tmp";
let s: TestServer;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "toolnexus-console-e2e-"));
  s = await startServer({
    config: {
      auth: {
        apiKeys: [
          { id: "ops", key: OPS, operator: true },
          { id: "team", key: TEAM },
        ],
      },
      audit: { sink: "stdout", arguments: "full" },
      pinning: { mode: "block", file: path.join(dir, "pins.json") },
      mcpServers: {
        wx: { command: [process.execPath, MUTABLE], env: { WEATHER_DESCRIPTION: `Weather ${SCRIPT} ${IMG}` } },
        broken: { command: [process.execPath, "-e", "process.stderr.write('boom: no such upstream'); process.exit(3)"] },
      },
    },
    tools: testTools(),
    auditDestination: { write: () => true },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await s?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A page that records every dialog and every request that leaves the service. */
async function watchedPage(): Promise<{ page: Page; dialogs: string[]; external: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(10_000);
  const dialogs: string[] = [];
  const external: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("request", (r) => {
    if (!r.url().startsWith(s.url)) external.push(r.url());
  });
  return { page, dialogs, external };
}

/** Nothing of the payloads ran or became an element. */
async function expectInert(page: Page, dialogs: string[]): Promise<void> {
  expect(dialogs).toEqual([]);
  expect(await page.evaluate("typeof window.__xss")).toBe("undefined");
  expect(await page.locator('img[src="x"]').count()).toBe(0);
}

async function call(tool: string, args: Record<string, unknown>): Promise<Response> {
  return fetch(`${s.url}/tools/${tool}/execute`, {
    method: "POST",
    headers: { ...team, "content-type": "application/json" },
    body: JSON.stringify({ arguments: args }),
  });
}

async function withScreenshotOnFailure(page: Page, name: string, steps: () => Promise<void>): Promise<void> {
  await mkdir(".tmp", { recursive: true });
  try {
    await steps();
  } catch (err) {
    await page.screenshot({ path: `.tmp/${name}-failed.png`, fullPage: true });
    throw err;
  }
}

describe("the operator console in Chromium", () => {
  it("signs in, shows the failed source, approves a changed definition, cancels an execution, tails the audit live", async () => {
    const { page, dialogs, external } = await watchedPage();
    await withScreenshotOnFailure(page, "console", async () => {
      await page.goto(`${s.url}/admin`);
      await page.locator("#credential").fill(OPS);
      await page.locator("#signin button[type=submit]").click();
      await expect.poll(() => page.locator("#who").textContent()).toBe("ops");

      // The source that failed, as failed, with its error.
      const broken = page.locator('#sources tr[data-source="broken"]');
      await expect.poll(() => broken.textContent()).toContain("failed");
      expect(await broken.getAttribute("class")).toBe("failed");
      expect(await broken.textContent()).toContain("boom: no such upstream");
      await expect.poll(() => page.locator('#sources tr[data-source="wx"]').textContent()).toContain("connected");

      // Pinned on first sight; then the upstream changes its tool (description and a new argument, both markup): held back.
      await eventually(async () => JSON.parse(await readFile(path.join(dir, "pins.json"), "utf8").catch(() => "{}")).pins?.wx_weather);
      expect((await call("wx_mutate", { description: `Changed ${IMG}`, addProperty: `${IMG}${SCRIPT}` })).status).toBe(200);
      await page.locator("#refresh").click();
      const pin = page.locator('#pins article[data-tool="wx_weather"]');
      await expect.poll(() => pin.count()).toBe(1);
      // The diff's values are JSON (quotes escaped), the argument's name a JSON-pointer path.
      expect(await pin.textContent()).toContain("Changed <img src=x onerror=");
      expect(await pin.textContent()).toContain("inputSchema/properties/<img src=x onerror=");
      expect(await pin.textContent()).toContain("<script>window.__xss='script'");
      await expectInert(page, dialogs);
      await page.screenshot({ path: `${SHOTS}/console-pin.png` });
      expect((await call("wx_weather", { city: "Oslo" })).status).toBe(409);
      await pin.locator("button.approve").click();
      await expect.poll(() => pin.count()).toBe(0);
      expect((await call("wx_weather", { city: "Oslo" })).status).toBe(200);

      // An execution in flight, another caller's: cancelled from the console.
      const x = await acceptedExecution(await submit(s.url, "slow", { arguments: { ms: 60_000 } }, team));
      await pollUntil(s.url, x.id, ["running"], { headers: team });
      await page.locator("#refresh").click();
      const row = page.locator(`#executions tr[data-execution="${x.id}"]`);
      await expect.poll(() => row.textContent()).toContain("apiKey:team");
      await page.screenshot({ path: `${SHOTS}/console.png` });
      await row.locator("button.cancel").click();
      expect((await pollUntil(s.url, x.id, ["cancelled"], { headers: team })).status).toBe("cancelled");
      await expect.poll(() => row.count()).toBe(0);

      // The audit tail, live: a call made now shows without a refresh.
      await expect.poll(() => page.locator("#audit-live").textContent()).toBe("live");
      expect((await call("echo", { text: "audited" })).status).toBe(200);
      await expect.poll(() => page.locator("#audit tbody tr").first().textContent()).toMatch(/team.*rest.*echo.*ok/);
      await expectInert(page, dialogs);
    });
    expect(external).toEqual([]);
    await page.close();
  }, 90_000);

  it("shows the upstream tool's description and arguments as text on the portal too", async () => {
    const { page, dialogs, external } = await watchedPage();
    await withScreenshotOnFailure(page, "portal-xss", async () => {
      await page.goto(`${s.url}/docs/`);
      await page.locator("button.authorize").first().click();
      const bearer = page.locator(".auth-container").first();
      await bearer.locator("input").fill(TEAM);
      await bearer.locator("button.authorize").click();
      await page.locator(".dialog-ux button.close-modal").click();
      const op = page.locator(".opblock").filter({ has: page.locator('.opblock-summary-path[data-path="/tools/wx_weather/execute"]') });
      await op.waitFor();
      await op.locator(".opblock-summary").click();
      await expect.poll(() => op.textContent()).toContain(`Changed ${IMG}`);
      await expectInert(page, dialogs);
    });
    expect(external).toEqual([]);
    await page.close();
  }, 60_000);

  it("refuses a console action posted by another site's page to a signed-in operator, and gives a non-operator 403", async () => {
    // The upstream changes again: a pin waits for approval.
    expect((await call("wx_restore", {})).status).toBe(200);
    const pending = async () =>
      (
        (await (await fetch(`${s.url}/admin/pins`, { headers: { authorization: `Bearer ${OPS}` } })).json()) as {
          pending: { tool: string }[];
        }
      ).pending;
    await eventually(async () => (await pending()).some((p) => p.tool === "wx_weather"));

    // Another origin of this machine (same site for cookies, so the session cookie goes along)
    // whose page posts a form to the console's approve action.
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<form method="post" action="${s.url}/admin/pins/wx_weather/approve"></form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
    const { page } = await watchedPage();
    try {
      await page.goto(`${s.url}/admin`);
      await page.locator("#credential").fill(OPS);
      await page.locator("#signin button[type=submit]").click();
      await expect.poll(() => page.locator("#who").textContent()).toBe("ops");
      const refused = page.waitForResponse((r) => r.url().endsWith("/admin/pins/wx_weather/approve"));
      await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      const res = await refused;
      expect(res.status()).toBe(403);
      expect(res.headers()["content-type"]).toMatch(/^application\/problem\+json/);
      expect(await pending()).toContainEqual(expect.objectContaining({ tool: "wx_weather" }));

      // A non-operator: 403 on the page and its APIs, nothing of the service shown.
      const forbidden = await page.request.get(`${s.url}/admin`, { headers: team });
      expect(forbidden.status()).toBe(403);
      expect(await forbidden.text()).not.toMatch(/wx_weather|broken/);
      expect((await page.request.get(`${s.url}/admin/executions`, { headers: team })).status()).toBe(403);
    } finally {
      await page.close();
      attacker.closeAllConnections();
      await new Promise((r) => attacker.close(r));
    }
  }, 60_000);
});
