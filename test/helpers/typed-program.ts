import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");

/**
 * Generates openapi-typescript types (`./api.js`) from a live server's `/openapi.json`,
 * type-checks `program` against them with tsc (strict), runs it with the server URL as its
 * argument and resolves with its stdout. The work directory is inside the repo, so the program
 * resolves openapi-fetch and eventsource-parser from our node_modules; it is removed after.
 */
export async function runTypedProgram(serverUrl: string, program: string): Promise<string> {
  await mkdir(path.join(root, ".tmp"), { recursive: true });
  const dir = await mkdtemp(path.join(root, ".tmp", "typed-client-"));
  try {
    const ast = await openapiTS(new URL(`${serverUrl}/openapi.json`));
    await writeFile(path.join(dir, "api.d.ts"), astToString(ast));
    await writeFile(path.join(dir, "main.ts"), program);
    await writeFile(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: true,
          outDir: "out",
          types: ["node"],
          typeRoots: [path.join(root, "node_modules/@types")],
          lib: ["ES2022", "DOM", "DOM.Iterable"],
        },
        files: ["main.ts", "api.d.ts"],
      }),
    );
    await run(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", dir]).catch((err: { stdout: string }) => {
      throw new Error(`tsc failed:\n${err.stdout}`);
    });
    const { stdout } = await run(process.execPath, [path.join(dir, "out", "main.js"), serverUrl]);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
