import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER } from "@a2a-js/sdk";

/** A skill as read from the card, whichever protocol version wrote it. */
export interface CardSkill {
  id?: unknown;
  name?: unknown;
  description?: unknown;
}

/** The raw card JSON, filled in where real cards are sloppy, ready for the SDK's normaliser. */
export interface RawCard extends Record<string, unknown> {
  name: string;
  skills: CardSkill[];
}

/**
 * GETs the Agent Card. It asks for the 1.0 shape (`A2A-Version: 1.0`): a 1.x server with
 * v0.3 compatibility then lists every interface it offers, and a 0.3 agent ignores the header.
 */
export async function fetchCard(cardUrl: string, fetchImpl: typeof fetch, timeoutMs: number): Promise<RawCard> {
  let res: Response;
  try {
    res = await fetchImpl(cardUrl, {
      headers: { accept: "application/json", [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    if ((err as Error).name === "TimeoutError" || (err as Error).name === "AbortError") {
      throw new Error(`agent card not received within ${timeoutMs}ms`);
    }
    throw err;
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`agent card request answered HTTP ${res.status}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(await res.text());
  } catch {
    throw new Error("agent card is not valid JSON");
  }
  return prepareCard(raw, cardUrl);
}

/**
 * Checks what the tools need (a `name`) and fills what the SDK's strict v0.3 translator
 * requires but many cards omit (`skills[].tags`, the input/output modes, `capabilities`).
 * A card naming no interface at all is treated as a v0.3 card whose JSON-RPC endpoint is
 * `url`, else the card URL's origin. Relative interface URLs resolve
 * against the card URL.
 */
export function prepareCard(raw: unknown, cardUrl: string): RawCard {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("agent card is not a JSON object");
  const card = { ...(raw as Record<string, unknown>) };
  if (typeof card.name !== "string" || card.name.trim() === "") throw new Error("agent card has no name");
  const skills = Array.isArray(card.skills) ? card.skills.filter(isObject) : [];
  card.skills = skills.map((s) => ({ ...s, tags: Array.isArray(s.tags) ? s.tags : [] }));
  for (const key of ["defaultInputModes", "defaultOutputModes"]) if (!Array.isArray(card[key])) card[key] = [];
  if (!isObject(card.capabilities)) card.capabilities = {};

  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces.filter(isObject) : [];
  if (interfaces.length > 0) {
    card.supportedInterfaces = interfaces.map((i) => (typeof i.url === "string" ? { ...i, url: new URL(i.url, cardUrl).href } : i));
  } else {
    delete card.supportedInterfaces;
    card.url = typeof card.url === "string" && card.url ? new URL(card.url, cardUrl).href : `${new URL(cardUrl).origin}/`;
    if (Array.isArray(card.additionalInterfaces)) {
      card.additionalInterfaces = card.additionalInterfaces
        .filter(isObject)
        .map((i) => (typeof i.url === "string" ? { ...i, url: new URL(i.url, cardUrl).href } : i));
    }
  }
  return card as RawCard;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
