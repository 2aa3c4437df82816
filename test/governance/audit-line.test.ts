import { readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../src/governance/audit-log.js";
import { auditLine, type AuditCall } from "../../src/governance/audit-line.js";
import { canonicalDigest, canonicalJson } from "../../src/governance/canonical-json.js";
import { redactArguments } from "../../src/governance/redact.js";
import { RotatingFile } from "../../src/governance/rotating-file.js";
import { silentLogger } from "../../src/core/types.js";
import { tempDir } from "../helpers/temp-dir.js";

const call: AuditCall = {
  requestId: "r1",
  transport: "rest",
  principal: "team-a",
  auth: "apiKey",
  tool: "echo",
  source: "custom",
  arguments: { text: "hi", password: "hunter2hunter2" },
  outcome: "ok",
  status: 200,
  durationMs: 1.5,
};

describe("canonical JSON", () => {
  it("sorts keys at every depth and drops undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: undefined, x: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"x":2,"z":1}]},"b":1}',
    );
    expect(canonicalDigest({ a: 1, b: 2 })).toBe(canonicalDigest({ b: 2, a: 1 }));
    expect(canonicalDigest({ a: 1 })).not.toBe(canonicalDigest({ a: 2 }));
  });
});

describe("redaction", () => {
  it("masks values under credential-like keys, configured keys and credential-looking strings", () => {
    expect(
      redactArguments(
        {
          text: "hello",
          apiKey: "whatever",
          nested: { Authorization: "x", list: ["eyJhbGciOi.eyJzdWIi.sig", "plain"] },
          account: "1234",
          header: "Bearer abc.def",
          gh: "ghp_abcdefghijklmnopqrstuvwx",
        },
        ["ACCOUNT"],
      ),
    ).toEqual({
      text: "hello",
      apiKey: "[redacted]",
      nested: { Authorization: "[redacted]", list: ["[redacted]", "plain"] },
      account: "[redacted]",
      header: "[redacted]",
      gh: "[redacted]",
    });
  });
});

describe("the audit line", () => {
  it("carries the fields in a fixed order, and the arguments as a digest by default", () => {
    const line = auditLine(call, { arguments: "digest", now: new Date("2026-01-02T03:04:05Z") });
    expect(line.endsWith("\n")).toBe(true);
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([
      "time",
      "type",
      "requestId",
      "transport",
      "principal",
      "auth",
      "tool",
      "source",
      "argumentsDigest",
      "outcome",
      "status",
      "durationMs",
    ]);
    expect(parsed.time).toBe("2026-01-02T03:04:05.000Z");
    expect(parsed.argumentsDigest).toBe(`sha256:${canonicalDigest(call.arguments)}`);
    expect(line).not.toContain("hunter2");
  });

  it("shows redacted or full arguments when asked", () => {
    expect(JSON.parse(auditLine(call, { arguments: "redacted" })).arguments).toEqual({ text: "hi", password: "[redacted]" });
    expect(JSON.parse(auditLine(call, { arguments: "full" })).arguments).toEqual(call.arguments);
  });
});

describe("the audit file", () => {
  it("never holds more than maxBytes with its rotated copy, and keeps the newest lines", async () => {
    const file = path.join(await tempDir(), "audit.log");
    const rf = new RotatingFile(file, 4096);
    for (let i = 0; i < 500; i++) rf.write(`${JSON.stringify({ i, pad: "x".repeat(40) })}\n`);
    rf.close();
    const total = statSync(file).size + statSync(`${file}.1`).size;
    expect(total).toBeLessThanOrEqual(4096);
    expect(statSync(file).size).toBeLessThanOrEqual(2048);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(JSON.parse(lines.at(-1) ?? "{}").i).toBe(499);
    // Every line is whole: rotation happens between lines.
    for (const l of [...lines, ...readFileSync(`${file}.1`, "utf8").trim().split("\n")]) expect(() => JSON.parse(l)).not.toThrow();
  });

  it("rotates a file left too large by an earlier run before writing", async () => {
    const dir = await tempDir({ "audit.log": "x".repeat(5000) });
    const file = path.join(dir, "audit.log");
    new RotatingFile(file, 4096).close();
    expect(statSync(file).size).toBe(0);
    expect(existsSync(`${file}.1`)).toBe(true);
  });

  it("writes a digest-only line when the arguments would not fit, and scrubs configured secrets", async () => {
    const file = path.join(await tempDir(), "audit.log");
    const secret = "s3cr3t-value-from-env";
    const log = new AuditLog(
      () => ({ sink: "file", path: file, maxBytes: 2048, arguments: "full" }),
      (s) => s.split(secret).join("[redacted]"),
      silentLogger,
      { write: () => true },
    );
    log.record({ ...call, arguments: { big: "y".repeat(3000) } });
    log.record({ ...call, arguments: { text: secret } });
    log.close();
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]?.arguments).toBeUndefined();
    expect(lines[0]?.argumentsDigest).toMatch(/^sha256:/);
    expect(lines[1]?.arguments).toEqual({ text: "[redacted]" });
    expect(readFileSync(file, "utf8")).not.toContain(secret);
  });

  it("refuses to open an audit file in a directory that does not exist", () => {
    expect(
      () =>
        new AuditLog(
          () => ({ sink: "file", path: "/nonexistent/dir/audit.log", maxBytes: 2048, arguments: "digest" }),
          (s) => s,
          silentLogger,
          { write: () => true },
        ),
    ).toThrow(/audit\.path: cannot open/);
  });
});
