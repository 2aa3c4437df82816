/**
 * `toolnexus call --async`: submits one call to a running server as an execution
 * and prints its id. The key comes from TOOLNEXUS_API_KEY, never from argv
 * (a command line is visible to every user of the machine).
 */
export async function submitExecution(baseUrl: string, name: string, args: Record<string, unknown>, timeoutMs?: number): Promise<number> {
  const key = process.env.TOOLNEXUS_API_KEY;
  let res: Response;
  try {
    res = await fetch(new URL(`tools/${encodeURIComponent(name)}/executions`, baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`), {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ arguments: args, ...(timeoutMs === undefined ? {} : { timeoutMs }) }),
    });
  } catch (err) {
    console.error(`error: cannot reach ${baseUrl}: ${(err as Error).message}`);
    return 2;
  }
  const body = (await res.json().catch(() => ({}))) as { id?: string; code?: string; detail?: string };
  if (res.status !== 202 || !body.id) {
    console.error(`error: ${res.status} ${body.code ?? ""} ${body.detail ?? ""}`.trimEnd());
    return 2;
  }
  process.stdout.write(`${body.id}\n`);
  return 0;
}
