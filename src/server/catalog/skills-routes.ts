import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { NO_SKILLS_PROMPT } from "../../core/toolkit.js";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { SkillList } from "../http/schemas/catalog.js";
import type { ServiceState } from "../service/service-state.js";

const SKILL_TOOL = "skill";

/** `/skills` and `/skills/prompt`: the skills of the catalog, for a caller that may use the skill tool. */
export const skillsRoutes: FastifyPluginAsyncTypebox<{ state: ServiceState }> = async (app, { state }) => {
  app.get(
    "/skills",
    {
      schema: {
        operationId: "listSkills",
        summary: "Loaded skills, and SKILL.md files skipped with their reasons",
        tags: ["skills"],
        response: { 200: Type.Ref(SkillList), "4xx": problem, "5xx": problem },
      },
    },
    async (request) => {
      const tk = state.toolkit();
      // The catalog is part of the skill tool: a key that may not use it does not see it either.
      if (!request.caller.allows(SKILL_TOOL)) return { skills: [], skipped: [] };
      return { skills: tk.skills(), skipped: tk.skippedSkills() };
    },
  );

  app.get(
    "/skills/prompt",
    {
      schema: {
        operationId: "skillsPrompt",
        summary: "The skills catalog for a system prompt",
        tags: ["skills"],
        response: {
          200: { description: "The catalog as text", content: { "text/plain": { schema: Type.String() } } },
          "4xx": problem,
          "5xx": problem,
        },
      },
    },
    async (request, reply) => {
      const tk = state.toolkit();
      const prompt = request.caller.allows(SKILL_TOOL) ? tk.skillsPrompt() : NO_SKILLS_PROMPT;
      return reply.type("text/plain; charset=utf-8").send(prompt);
    },
  );
};
