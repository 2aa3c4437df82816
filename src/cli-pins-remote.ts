/**
 * `toolnexus pins list|approve <tool> --url URL`: the pins of a running service, through its
 * operator routes (`GET /admin/pins`, `POST /admin/pins/{tool}/approve`), so an operator needs
 * an operator key and no other secret of the config. The key comes from --key, else
 * TOOLNEXUS_API_KEY (the safer of the two: a command line is visible to every user).
 */

interface PendingRow {
  tool: string;
  kind: string;
  pinned?: string;
  current: string;
  withheld: boolean;
  changes: { path: string; change: string }[];
}

/** What the remote pins command needs of the CLI. */
export interface RemotePins {
  url: string;
  key: string | undefined;
  json: boolean;
  print(text: string, code?: number): number;
}

/** Runs `pins list` or `pins approve <tool>` against the service at `o.url`; the exit code. */
export async function remotePinsCommand(sub: string | undefined, tool: string | undefined, o: RemotePins): Promise<number> {
  if (sub === "list") {
    const res = await request(o, "GET", "admin/pins");
    if (typeof res === "number") return res;
    const body = res as { mode: string; store: string; pending: PendingRow[] };
    if (o.json) return o.print(JSON.stringify(body, null, 2));
    o.print(`mode ${body.mode}, store ${body.store}, ${body.pending.length} waiting for approval`);
    for (const p of body.pending) {
      o.print(`${p.tool.padEnd(32)} ${p.kind.padEnd(8)} ${p.withheld ? "withheld" : "served"}  ${p.pinned ?? "-"} -> ${p.current}`);
      for (const c of p.changes) o.print(`    ${c.path} ${c.change}`);
    }
    return 0;
  }
  if (sub === "approve") {
    if (!tool) return o.print("error: toolnexus pins approve <tool> --url URL", 2);
    const res = await request(o, "POST", `admin/pins/${encodeURIComponent(tool)}/approve`);
    if (typeof res === "number") return res;
    const pin = res as { tool: string; digest: string; approvedBy: string };
    return o.print(`approved ${pin.tool} ${pin.digest} (by ${pin.approvedBy})`);
  }
  return o.print("error: with --url: toolnexus pins list|approve <tool> (reset works on a config's store: --config)", 2);
}

/** The JSON body of a 200, or the exit code after printing why there is none. */
async function request(o: RemotePins, method: string, route: string): Promise<unknown> {
  const base = o.url.endsWith("/") ? o.url : `${o.url}/`;
  let res: Response;
  try {
    res = await fetch(new URL(route, base), { method, headers: o.key ? { authorization: `Bearer ${o.key}` } : {} });
  } catch (err) {
    return o.print(`error: cannot reach ${o.url}: ${(err as Error).message}`, 2);
  }
  const body = (await res.json().catch(() => ({}))) as { code?: string; detail?: string };
  if (res.ok) return body;
  const hint = res.status === 401 ? " (pass --key or set TOOLNEXUS_API_KEY)" : res.status === 403 ? " (the key is not an operator's)" : "";
  return o.print(`error: ${res.status} ${body.code ?? ""} ${body.detail ?? ""}`.trimEnd() + hint, 2);
}
