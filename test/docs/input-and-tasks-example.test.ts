import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServeProcess, type ServeProcess } from "../helpers/serve-process.js";

/**
 * The execution example of docs/input-and-tasks.md (a tool that asks for approval), cut from
 * the page and run as written against `toolnexus serve` of the quick-start config: it calls a
 * tool every newcomer has, and each response is what the page's comment under it says.
 */
const root = path.resolve(import.meta.dirname, "../..");
const page = readFileSync(path.join(root, "docs/input-and-tasks.md"), "utf8");
const block = /```bash[^\n]*\n(# A tool that asks for approval[\s\S]*?)```/.exec(page)?.[1] ?? "";

let server: ServeProcess;
beforeAll(async () => {
  server = await startServeProcess(path.join(root, "examples/config"));
});
afterAll(async () => {
  await server?.stop();
});

it("runs the approval example of docs/input-and-tasks.md as the page shows it", async () => {
  expect(block).toContain("confirm_delete");
  const script = block.replaceAll("localhost:8080", server.url.replace("http://", ""));
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile("bash", ["-ec", script], (err, out) => (err ? reject(err) : resolve(out))),
  );
  const [asked, answered, done] = stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(asked).toMatchObject({
    tool: "confirm_delete",
    status: "input_required",
    inputRequests: {
      input: {
        method: "elicitation/create",
        params: { mode: "form", message: "Delete report.txt?", requestedSchema: { type: "object", properties: {} } },
      },
    },
  });
  expect(answered).toMatchObject({ tool: "confirm_delete", status: "running" });
  expect(done).toMatchObject({ tool: "confirm_delete", status: "succeeded", result: { output: "Deleted report.txt", isError: false } });
});
