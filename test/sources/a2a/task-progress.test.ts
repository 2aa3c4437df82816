import { Role, TaskState, type Task } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import type { Progress } from "../../../src/core/types.js";
import { taskProgress } from "../../../src/sources/a2a/task-progress.js";
import { textPart } from "../../fixtures/a2a/agent-executor.js";

const task = (state: TaskState, text?: string): Task =>
  ({
    id: "t1",
    contextId: "c1",
    artifacts: [],
    history: [],
    metadata: {},
    status: {
      state,
      timestamp: "",
      message:
        text === undefined
          ? undefined
          : {
              messageId: "m",
              contextId: "c1",
              taskId: "t1",
              role: Role.ROLE_AGENT,
              parts: [textPart(text)],
              metadata: undefined,
              extensions: [],
              referenceTaskIds: [],
            },
    },
  }) as Task;

describe("A2A task status → progress reports", () => {
  it("reports each change of state or status message once, numbered, and no final state", () => {
    const seen: Progress[] = [];
    const report = taskProgress((p) => seen.push(p));
    for (const t of [
      task(TaskState.TASK_STATE_SUBMITTED),
      task(TaskState.TASK_STATE_SUBMITTED),
      task(TaskState.TASK_STATE_WORKING),
      task(TaskState.TASK_STATE_WORKING, "reading"),
      task(TaskState.TASK_STATE_WORKING, "reading"),
      task(TaskState.TASK_STATE_WORKING, "writing"),
      task(TaskState.TASK_STATE_COMPLETED, "done"),
    ])
      report(t);
    expect(seen).toEqual([
      { progress: 1, message: "submitted" },
      { progress: 2, message: "working" },
      { progress: 3, message: "working: reading" },
      { progress: 4, message: "working: writing" },
    ]);
  });
});
