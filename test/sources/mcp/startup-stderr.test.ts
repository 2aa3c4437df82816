import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../../helpers/server.js";

interface StatusBody {
  sources: { name: string; state: string; error?: string }[];
}

// A stdio server that explains itself on stderr and exits before it ever speaks MCP.
const CRASHING = [
  "process.stderr.write('starting weather server\\n');",
  "process.stderr.write('using token ' + process.env.WEATHER_TOKEN + '\\n');",
  "process.stderr.write('fatal: WEATHER_REGION is not set\\n');",
  "process.exit(3);",
].join(" ");

describe("an MCP server that exits during start-up", () => {
  let srv: TestServer;
  const token = "wx-secret-token-0123456789";

  beforeAll(async () => {
    process.env.TOOLNEXUS_TEST_WEATHER_TOKEN = token;
    srv = await startServer({
      config: {
        mcpServers: {
          weather: {
            command: process.execPath,
            args: ["-e", CRASHING],
            env: { WEATHER_TOKEN: "${TOOLNEXUS_TEST_WEATHER_TOKEN}" },
            timeout: 5000,
          },
        },
      },
    });
  });
  afterAll(async () => {
    await srv?.close();
    delete process.env.TOOLNEXUS_TEST_WEATHER_TOKEN;
  });

  it("reports the last lines of its stderr, scrubbed, in /status and in the log", async () => {
    const body = (await (await fetch(`${srv.url}/status`)).json()) as StatusBody;
    const weather = body.sources.find((s) => s.name === "weather");
    expect(weather?.state).toBe("failed");
    expect(weather?.error).toContain("fatal: WEATHER_REGION is not set");
    expect(weather?.error).toContain("starting weather server");
    expect(weather?.error).not.toContain(token);

    const line = srv.logs.find((l) => l.msg === "mcp server failed to start");
    expect(line?.stderr).toEqual([
      "starting weather server",
      expect.stringMatching(/^using token (?!wx-secret)/),
      "fatal: WEATHER_REGION is not set",
    ]);
    expect(srv.logText()).not.toContain(token);
  });
});
