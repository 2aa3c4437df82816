/** POSTs `body` (sent as JSON) to `/tools/{name}/execute` of the server at `baseUrl`. */
export function executeTool(baseUrl: string, name: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/tools/${name}/execute`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
