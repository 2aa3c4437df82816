import { Type } from "../http/typebox-lite.js";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { ProblemResponse as problem } from "../http/schemas/common.js";
import { TOOL_NAME } from "../../core/checks/tool-name.js";
import type { PinGuard } from "./pin-guard.js";
import { ApprovedPin, PinStatus } from "../http/schemas/pins.js";

// A tool name, or the pin key of a prompt or a resource template.
const PIN_KEY = `^(?:${TOOL_NAME.source.slice(1, -1)}|prompt:${TOOL_NAME.source.slice(1, -1)}|resourceTemplate:[!-~]{1,2700})$`;

/**
 * `GET /admin/pins` and `POST /admin/pins/{tool}/approve`: operator callers only (their route
 * policy), with a key or the operator console's session (whose approve needs its CSRF token).
 */
export const pinRoutes: FastifyPluginAsyncTypebox<{ pins: PinGuard }> = async (app, { pins: guard }) => {
  app.get(
    "/admin/pins",
    {
      config: { access: "operator", traced: true, session: true },
      schema: {
        operationId: "listPins",
        summary: "Tool-definition pinning: tools whose definition changed, or new ones awaiting approval (operators only)",
        tags: ["admin"],
        response: { 200: Type.Ref(PinStatus), "4xx": problem, "5xx": problem },
      },
    },
    async () => guard.status(),
  );

  app.post(
    "/admin/pins/:tool/approve",
    {
      config: { access: "operator", traced: true, session: true },
      schema: {
        operationId: "approvePin",
        summary:
          "Approve the definition a tool, prompt or resource template has now (operators only): it is pinned, and served again if it was withheld",
        tags: ["admin"],
        params: Type.Object({
          tool: Type.String({
            pattern: PIN_KEY,
            maxLength: 2717,
            description:
              "A tool's name, `prompt:<name>`, or `resourceTemplate:<uriTemplate>` (URL-encoded; a template of printable ASCII up to 2,700 characters).",
          }),
        }),
        response: { 200: Type.Ref(ApprovedPin), "4xx": problem, "5xx": problem },
      },
    },
    async (request) => {
      const { tool } = request.params;
      const pin = await guard.approve(tool, request.caller.id);
      return { tool, digest: pin.digest, pinnedAt: pin.pinnedAt, approvedBy: pin.approvedBy ?? request.caller.id };
    },
  );
};
