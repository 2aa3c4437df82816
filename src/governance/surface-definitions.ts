import { surfacePinKey } from "../core/surface/access.js";
import type { Surface } from "../core/surface/catalog.js";
import type { Toolkit } from "../core/toolkit.js";
import type { Reviewed } from "./pin-review.js";
import { definitionOf, promptDefinitionOf, templateDefinitionOf, type Definition } from "./tool-definition.js";

/**
 * The prompts and resource templates of a catalog as pinning reviews them: under their pin keys
 * (`prompt:<name>`, `resourceTemplate:<uriTemplate>`, in the catalog's names), beside its tools.
 * A server that changes what a prompt asks for, or where a template points, after review is
 * caught as a tool that changes its schema is.
 */

/** Every prompt and resource template of `surface`, ready for review. */
export function surfaceDefinitions(surface: Surface): Reviewed[] {
  return [
    ...surface.prompts.map((e) => ({
      key: surfacePinKey("prompt", e.item.name as string),
      def: promptDefinitionOf(e.item),
      subject: "prompt" as const,
    })),
    ...surface.templates.map((e) => ({
      key: surfacePinKey("resourceTemplate", e.item.uriTemplate as string),
      def: templateDefinitionOf(e.item),
      subject: "resourceTemplate" as const,
    })),
  ];
}

/** The definition a pin key stands for in `tk` now (a tool, a prompt or a resource template), if it serves one. */
export function definitionByKey(tk: Toolkit, key: string): Definition | undefined {
  const prompt = /^prompt:(.+)$/s.exec(key)?.[1];
  if (prompt !== undefined) {
    const e = tk.surface().prompt(prompt);
    return e && promptDefinitionOf(e.item);
  }
  const template = /^resourceTemplate:(.+)$/s.exec(key)?.[1];
  if (template !== undefined) {
    const e = tk.surface().template(template);
    return e && templateDefinitionOf(e.item);
  }
  const tool = tk.get(key);
  return tool && definitionOf(tool);
}
