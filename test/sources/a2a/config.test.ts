import { describe, expect, it } from "vitest";
import { normalizeConfig } from "../../../src/config/load.js";
import { ConfigError } from "../../../src/config/config-error.js";
import { prepareCard } from "../../../src/sources/a2a/agent-card.js";
import { a2aSources, isAgentEnabled } from "../../../src/sources/a2a/index.js";

describe("agents: config", () => {
  it("uses MCP isEnabled precedence: disabled:true wins, else enabled:false disables", () => {
    const card = "http://127.0.0.1:1/card";
    expect(isAgentEnabled({ card })).toBe(true);
    expect(isAgentEnabled({ card, enabled: true })).toBe(true);
    expect(isAgentEnabled({ card, enabled: false })).toBe(false);
    expect(isAgentEnabled({ card, disabled: true, enabled: true })).toBe(false);
    expect(isAgentEnabled({ card, disabled: false, enabled: false })).toBe(false);
  });

  it("builds one source per key; disabled ones show as disabled without any request", async () => {
    const loaded = await normalizeConfig({
      agents: {
        peer: { card: "http://127.0.0.1:1/.well-known/agent-card.json" },
        off: { card: "http://127.0.0.1:1/.well-known/agent-card.json", enabled: false },
      },
    });
    const sources = a2aSources(loaded);
    expect(sources.map((s) => [s.kind, s.name, s.status().state])).toEqual([
      ["a2a", "peer", "connecting"],
      ["a2a", "off", "disabled"],
    ]);
  });

  it("rejects a card that is not an http(s) URL and unknown keys", async () => {
    const err = await normalizeConfig({ agents: { peer: { card: "file:///etc/passwd", poll: 5 } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues.map((i) => i.pointer).sort()).toEqual(["/agents/peer/card", "/agents/peer/poll"]);
  });
});

describe("prepareCard", () => {
  const cardUrl = "http://agent.test:9999/.well-known/agent-card.json";

  it("treats a card without interfaces as v0.3 with the JSON-RPC endpoint at its url, else the card origin", () => {
    expect(prepareCard({ name: "A" }, cardUrl)).toMatchObject({ name: "A", url: "http://agent.test:9999/", skills: [] });
    expect(prepareCard({ name: "A", url: "/rpc" }, cardUrl).url).toBe("http://agent.test:9999/rpc");
    expect(prepareCard({ name: "A", supportedInterfaces: [] }, cardUrl)).not.toHaveProperty("supportedInterfaces");
  });

  it("resolves relative interface URLs and fills what the SDK's v0.3 translator requires", () => {
    const card = prepareCard(
      {
        name: "A",
        supportedInterfaces: [{ url: "a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
        skills: [{ id: "s" }, "junk"],
      },
      cardUrl,
    );
    expect(card.supportedInterfaces).toEqual([
      { url: "http://agent.test:9999/.well-known/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    ]);
    expect(card).toMatchObject({ skills: [{ id: "s", tags: [] }], defaultInputModes: [], defaultOutputModes: [], capabilities: {} });
  });

  it.each([
    [null, "agent card is not a JSON object"],
    [[], "agent card is not a JSON object"],
    [{ name: " " }, "agent card has no name"],
  ])("refuses %j", (raw, message) => {
    expect(() => prepareCard(raw, cardUrl)).toThrow(message);
  });
});
