import { describe, expect, it } from "vitest";
import { createToolkit } from "../../../src/create-toolkit.js";
import { tempDir } from "../../helpers/temp-dir.js";

const files = {
  "plugins/definition.mjs": "export default { name: 'def', description: 'a definition', run: ({ x }) => `def ${x}` };\n",
  "plugins/tool.mjs":
    "export default { name: 'raw', description: 'a Tool', source: 'custom', inputSchema: { type: 'object' }, execute: async () => ({ output: 'raw', isError: false }) };\n",
  "plugins/array.mjs":
    "export default [{ name: 'a1', description: '', run: () => 'one' }, { name: 'a2', description: '', run: () => 'two' }];\n",
  "plugins/factory.mjs":
    "export default async ({ file }) => { await new Promise((r) => setTimeout(r, 5)); return [{ name: 'made', description: file.endsWith('factory.mjs') ? 'ok' : 'bad', run: () => 'made' }]; };\n",
  "plugins/broken.mjs": "import 'does-not-exist-anywhere';\nexport default [];\n",
  "plugins/empty.mjs": "export const notDefault = 1;\n",
};

describe("plugins source", () => {
  it("loads every default-export shape and isolates modules that fail", async () => {
    const dir = await tempDir(files);
    const tk = await createToolkit({ plugins: ["./plugins/*.mjs"] }, { baseDir: dir });
    expect(tk.tools().map((t) => `${t.name}@${t.source}`)).toEqual(["a1@native", "a2@native", "def@native", "made@native", "raw@custom"]);
    await expect(tk.execute("def", { x: 1 })).resolves.toEqual({ output: "def 1", isError: false });
    await expect(tk.execute("made")).resolves.toEqual({ output: "made", isError: false });
    expect(tk.get("made")?.description).toBe("ok");

    const status = Object.fromEntries(tk.status().map((s) => [s.name, s]));
    expect(status["plugins/broken.mjs"]).toMatchObject({ source: "native", state: "failed", tools: 0 });
    expect(status["plugins/broken.mjs"]?.error).toContain("does-not-exist-anywhere");
    expect(status["plugins/empty.mjs"]).toMatchObject({ state: "failed", error: "default export holds no tools" });
    expect(status["plugins/array.mjs"]).toEqual({ source: "native", name: "plugins/array.mjs", state: "connected", tools: 2 });
    await tk.close();
  });

  it("a host tool passed to createToolkit joins the catalog", async () => {
    const tk = await createToolkit(
      {},
      {
        tools: [
          {
            name: "host",
            description: "",
            inputSchema: { type: "object" },
            source: "custom",
            execute: async () => ({ output: "h", isError: false }),
          },
        ],
      },
    );
    expect(tk.tools().map((t) => t.name)).toEqual(["host"]);
  });
});
