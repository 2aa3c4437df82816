import { execFileSync } from "node:child_process";

/** Builds dist/ once: CLI and packaging tests run the compiled `toolnexus` like a user does. */
export default function setup(): void {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
