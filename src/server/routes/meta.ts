import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Health, ProblemResponse as problem, SkillList, Status } from "../schemas.js";
import type { PinStatus } from "../governance/pin-guard.js";
import type { ServiceState } from "../service-state.js";
import { NO_SKILLS_PROMPT } from "../../core/toolkit.js";

const SKILL_TOOL = "skill";

/** `/healthz`, `/readyz`, `/status`, `/skills`, `/skills/prompt`. */
export const metaRoutes: FastifyPluginAsyncTypebox<{ state: ServiceState; scrub: (s: string) => string; pins?: () => PinStatus | undefined }> = async (app, { state, scrub, pins }) => {
  app.get("/healthz", {
    schema: { operationId: "health", summary: "Liveness: 200 while the process lives", tags: ["service"], security: [], response: { 200: Type.Ref(Health) } },
  }, async () => ({ status: "ok" }));

  app.get("/readyz", {
    schema: { operationId: "ready", summary: "Readiness: 200 once sources are loaded, 503 while loading or draining", tags: ["service"], security: [], response: { 200: Type.Ref(Health), 503: problem } },
  }, async () => {
    state.toolkit();
    return { status: "ready" };
  });

  app.get("/status", {
    schema: { operationId: "status", summary: "Per-source status, without secrets", tags: ["service"], response: { 200: Type.Ref(Status), "4xx": problem } },
  }, async () => {
    const tk = state.peek();
    const body = {
      ready: state.phase === "ready",
      state: state.phase,
      tools: tk?.tools().length ?? 0,
      sources: tk?.status() ?? [],
      ...(state.loadError ? { error: state.loadError } : {}),
      ...(state.lastReload ? { reload: state.lastReload } : {}),
      ...(pins?.() ? { pins: pins() } : {}),
    };
    // Source names and errors come from many libraries: scrub known secrets on the way out.
    return JSON.parse(scrub(JSON.stringify(body))) as typeof body;
  });

  app.get("/skills", {
    schema: { operationId: "listSkills", summary: "Loaded skills, and SKILL.md files skipped with their reasons", tags: ["skills"], response: { 200: Type.Ref(SkillList), "4xx": problem, "5xx": problem } },
  }, async (request) => {
    const tk = state.toolkit();
    // The catalog is part of the skill tool: a key that may not use it does not see it either.
    if (!request.caller.allows(SKILL_TOOL)) return { skills: [], skipped: [] };
    return { skills: tk.skills(), skipped: tk.skippedSkills() };
  });

  app.get("/skills/prompt", {
    schema: {
      operationId: "skillsPrompt", summary: "The skills catalog for a system prompt", tags: ["skills"],
      response: { 200: { description: "The catalog as text", content: { "text/plain": { schema: Type.String() } } }, "4xx": problem, "5xx": problem },
    },
  }, async (request, reply) => {
    const tk = state.toolkit();
    const prompt = request.caller.allows(SKILL_TOOL) ? tk.skillsPrompt() : NO_SKILLS_PROMPT;
    return reply.type("text/plain; charset=utf-8").send(prompt);
  });
};
