import { describe, expect, it } from "vitest";
import { toAnthropic, toGemini, toOpenAI } from "../../src/core/adapters.js";
import type { ToolInfo } from "../../src/core/types.js";

const tools: ToolInfo[] = [
  { name: "a", description: "first", inputSchema: { type: "object", properties: { x: { type: "string" } } }, source: "native" },
  { name: "b", description: "second", inputSchema: { type: "object" }, source: "mcp" },
];

describe("adapters", () => {
  it("OpenAI: {type:function, function:{name, description, parameters}}", () => {
    expect(toOpenAI(tools)).toEqual([
      { type: "function", function: { name: "a", description: "first", parameters: tools[0]?.inputSchema } },
      { type: "function", function: { name: "b", description: "second", parameters: { type: "object" } } },
    ]);
  });

  it("Anthropic: {name, description, input_schema}", () => {
    expect(toAnthropic(tools)).toEqual([
      { name: "a", description: "first", input_schema: tools[0]?.inputSchema },
      { name: "b", description: "second", input_schema: { type: "object" } },
    ]);
  });

  it("Gemini: one element wrapping every declaration", () => {
    expect(toGemini(tools)).toEqual([
      {
        functionDeclarations: [
          { name: "a", description: "first", parameters: tools[0]?.inputSchema },
          { name: "b", description: "second", parameters: { type: "object" } },
        ],
      },
    ]);
  });
});
