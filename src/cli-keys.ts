// `toolnexus keys new`: a fresh API key and the config lines that put it to use (nothing written).
import { HELP } from "./cli-help.js";
import { fail, print } from "./cli-output.js";

/** `toolnexus keys new`: a fresh key and the lines that put it to use. */
export async function newKey(sub: string | undefined, id: string, operator: boolean): Promise<number> {
  if (sub !== "new") return print(HELP.keys ?? "", 2);
  if (!/^[A-Za-z0-9_.-]+$/.test(id)) return fail("--id may hold letters, digits, '_', '.' and '-' only");
  const { randomBytes } = await import("node:crypto");
  const key = randomBytes(32).toString("hex");
  const variable = `TOOLNEXUS_KEY_${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
  return print(
    [
      `key: ${key}`,
      "",
      "# the config (auth.apiKeys), reading the key from the environment:",
      "auth:",
      "  apiKeys:",
      `    - { id: ${id}, key: "\${${variable}}"${operator ? ", operator: true" : ""} }`,
      "",
      "# the environment of the service:",
      `export ${variable}=${key}`,
      "",
      "# a client (or the portal's Authorize):",
      `curl -H 'authorization: Bearer ${key}' http://127.0.0.1:8080/tools`,
    ].join("\n"),
  );
}
