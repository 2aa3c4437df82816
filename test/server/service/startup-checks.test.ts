import { describe, expect, it } from "vitest";
import { normalizeConfig } from "../../../src/config/load.js";
import { exposureWarning, refusalReason } from "../../../src/server/service/startup-checks.js";
import { tempDir } from "../../helpers/temp-dir.js";

async function config(raw: Record<string, unknown>) {
  return (await normalizeConfig(raw, { baseDir: await tempDir() })).config;
}
const KEYS = { apiKeys: [{ id: "a", key: "0123456789abcdef0123" }] };

describe("secure by default", () => {
  it("refuses to serve command and file built-ins without API keys", async () => {
    const reason = refusalReason(await config({ builtins: true }));
    expect(reason).toContain("bash, write, edit, apply_patch");
    expect(reason).toContain("auth.apiKeys");
    expect(refusalReason(await config({ builtins: { enabled: true, tools: { bash: false, edit: false } } }))).toContain(
      "write, apply_patch",
    );
  });

  it("starts when keys exist, when only read-only built-ins are on, when insecure is set, or when builtins are off", async () => {
    expect(refusalReason(await config({ builtins: true, auth: KEYS }))).toBeUndefined();
    expect(refusalReason(await config({ builtins: { enabled: true, tools: { read: true, grep: true } } }))).toBeUndefined();
    expect(refusalReason(await config({ builtins: true, server: { insecure: true } }))).toBeUndefined();
    expect(refusalReason(await config({ builtins: true }), true)).toBeUndefined();
    expect(refusalReason(await config({ builtins: { enabled: false } }))).toBeUndefined();
    expect(refusalReason(await config({}))).toBeUndefined();
  });

  it("warns when an open service listens beyond loopback", async () => {
    expect(exposureWarning(await config({}), "0.0.0.0")).toContain("anyone who can reach this address");
    expect(exposureWarning(await config({}), "127.0.0.1")).toBeUndefined();
    expect(exposureWarning(await config({}), "::1")).toBeUndefined();
    expect(exposureWarning(await config({ auth: KEYS }), "0.0.0.0")).toBeUndefined();
  });
});
