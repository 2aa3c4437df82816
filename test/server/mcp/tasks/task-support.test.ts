import { describe, expect, it } from "vitest";
import type { CallPipeline } from "../../../../src/server/calls/call-pipeline.js";
import type { ExecutionStore } from "../../../../src/server/executions/engine/store.js";
import type { ServiceState } from "../../../../src/server/service/service-state.js";
import { McpTasks } from "../../../../src/server/mcp/tasks/tasks.js";

/** McpTasks over a config map and the task support the tools declare themselves (nothing else is read). */
function tasks(taskSupport: Record<string, "optional" | "required" | "forbidden"> | undefined, declared: Record<string, string>) {
  const state = {
    loaded: { config: { server: { mcp: { taskAfterMs: 1000, ...(taskSupport ? { taskSupport } : {}) } } } },
    toolkit: () => ({ get: (name: string) => (name in declared ? { name, taskSupport: declared[name] || undefined } : undefined) }),
  } as unknown as ServiceState;
  return new McpTasks(state, {} as CallPipeline, {} as ExecutionStore);
}

describe("which tools run as MCP tasks", () => {
  it("takes what a tool declares when the config says nothing", () => {
    const t = tasks(undefined, { job: "required", maybe: "optional", plain: "" });
    expect([t.supportOf("job"), t.supportOf("maybe"), t.supportOf("plain"), t.supportOf("unknown")]).toEqual([
      "required",
      "optional",
      undefined,
      undefined,
    ]);
  });

  it("lets server.mcp.taskSupport override it: the exact name, else the longest prefix*, forbidden meaning never", () => {
    const t = tasks(
      { "gh_*": "optional", "gh_admin_*": "required", gh_admin_ping: "forbidden", job: "forbidden", "x*": "required" },
      { job: "required", gh_list: "" },
    );
    expect(t.supportOf("gh_list")).toBe("optional");
    expect(t.supportOf("gh_admin_purge")).toBe("required");
    expect(t.supportOf("gh_admin_ping")).toBeUndefined();
    expect(t.supportOf("job")).toBeUndefined();
    expect(t.supportOf("xyz")).toBe("required");
    // A key without * is a name, never a prefix.
    expect(t.supportOf("jobs")).toBeUndefined();
  });
});
