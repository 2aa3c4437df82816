import type { Task } from "@a2a-js/sdk";
import type { Progress } from "../../core/types.js";
import { isFinalState, stateName, textOf } from "./task-result.js";

/**
 * Turns the task states seen while polling into progress reports: one report per
 * change of state or status message, numbered 1, 2, … (A2A has no numeric progress), with
 * `message` = `state` or `state: status text`. A final state is the result's, not a report.
 */
export function taskProgress(onProgress: ((p: Progress) => void) | undefined): (task: Task) => void {
  if (!onProgress) return () => {};
  let last = "";
  let n = 0;
  return (task) => {
    const state = stateName(task.status?.state);
    if (isFinalState(state)) return;
    const text = textOf(task.status?.message?.parts).join("\n");
    const message = text ? `${state}: ${text}` : state;
    if (message === last) return;
    last = message;
    onProgress({ progress: ++n, message });
  };
}
