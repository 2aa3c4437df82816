import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCollector, type Collector } from "../helpers/otlp-collector.js";
import { startServeProcess } from "../helpers/serve-process.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/wait.js";

// The `toolnexus` bin is the bundle scripts/bundle.mjs makes (dist/bundle/cli.js). The e2e tests
// that spawn `serve` run it; these cover what a bundle alone can get wrong: files a package finds
// beside itself (Swagger UI's assets), the version read from package.json, tracing loaded from
// its own packages, and a CommonJS package loaded lazily.
const root = path.resolve(import.meta.dirname, "../..");
let collector: Collector;
beforeAll(async () => {
  collector = await startCollector();
});
afterAll(() => collector.close());

describe("the bundled CLI", () => {
  it("serves the portal's assets, says its version, loads tracing and answers a call traced", async () => {
    const { version } = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { version: string };
    const plugin = path.join(root, "examples/config/plugins/examples.mjs");
    const dir = await tempDir({
      "toolnexus.yaml": `plugins: [${JSON.stringify(plugin)}]\ntelemetry: { otlp: { endpoint: "${collector.endpoint}", protocol: http/json } }\n`,
    });
    const s = await startServeProcess(dir);
    try {
      const css = await fetch(`${s.url}/docs/static/swagger-ui.css`);
      expect(css.status).toBe(200);
      expect((await css.text()).length).toBeGreaterThan(10_000);
      expect(await (await fetch(`${s.url}/docs/`)).text()).toContain("swagger-ui");

      const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { info: { version: string } };
      expect(doc.info.version).toBe(version);

      const res = await fetch(`${s.url}/tools/echo/execute`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ arguments: { text: "bundled" } }),
      });
      expect(await res.json()).toMatchObject({ output: "bundled", isError: false });
      expect(s.logs().some((l) => l.msg === "tracing on")).toBe(true);
    } finally {
      await s.stop(); // flushes the span batch
    }
    await eventually(() => collector.spans.some((x) => x.name === "tool echo"), { timeoutMs: 10_000, everyMs: 50 });
  });
});
