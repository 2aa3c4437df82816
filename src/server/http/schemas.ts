/**
 * One TypeBox schema per wire shape. Fastify validates and serializes with these and
 * @fastify/swagger turns them into openapi/openapi.json, so the three never drift apart.
 * Shapes with an $id become OpenAPI components. The shapes live in schemas/, by what they
 * describe; this is their one registry.
 */
import { AdapterToolList, SkillList, ToolInfo, ToolList } from "./schemas/catalog.js";
import { Answer, ExecuteBody, InputRequests, LogMessage, Progress, StreamEvent, ToolResult } from "./schemas/calls.js";
import { Problem } from "./schemas/common.js";
import { ApprovedPin, PendingPin, PinStatus } from "./schemas/pins.js";
import { Health, SourceStatus, Status } from "./schemas/service.js";

/** Every schema with an $id, registered once with Fastify (and so emitted as components). */
export const SHARED_SCHEMAS = [
  Problem,
  ToolInfo,
  ToolList,
  AdapterToolList,
  Answer,
  InputRequests,
  ExecuteBody,
  ToolResult,
  Progress,
  LogMessage,
  StreamEvent,
  SourceStatus,
  PendingPin,
  PinStatus,
  ApprovedPin,
  Status,
  SkillList,
  Health,
];
