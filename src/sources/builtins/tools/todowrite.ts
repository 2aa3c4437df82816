import { builtinTool, BuiltinError, ok } from "../common/tool.js";

interface Todo {
  id: string;
  text: string;
  completed: boolean;
}

/** `todowrite`: replaces the caller's todo list. Stateless: it echoes the list back, rendered. */
export function todowriteTool() {
  return builtinTool({
    name: "todowrite",
    description: "Replace the todo list with todos. Returns the rendered list. Nothing is stored server-side.",
    inputSchema: {
      type: "object",
      properties: {
        todos: {
          type: "array",
          description: "The full todo list",
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              text: { type: "string" },
              completed: { type: "boolean" },
            },
            required: ["id", "text", "completed"],
          },
        },
      },
      required: ["todos"],
      additionalProperties: false,
    },
    async run(args) {
      if (!Array.isArray(args.todos)) throw new BuiltinError("todos must be an array");
      const todos = args.todos.map((t, i) => {
        const item = t as Partial<Todo> | null;
        if (typeof item !== "object" || item === null || typeof item.text !== "string") {
          throw new BuiltinError(`todos[${i}].text must be a string`);
        }
        return { id: String(item.id ?? i + 1), text: item.text, completed: item.completed === true };
      });
      const rendered = todos.map((t) => `[${t.completed ? "x" : " "}] ${t.text}`).join("\n");
      const done = todos.filter((t) => t.completed).length;
      return ok(rendered || "(no todos)", { todos, completed: done, total: todos.length });
    },
  });
}
