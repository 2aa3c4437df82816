import { execFileSync } from "node:child_process";

/**
 * Builds dist/ once (tsc, then the bundle the `toolnexus` bin runs): CLI and packaging tests run
 * the bundled `toolnexus` like a user does.
 * TOOLNEXUS_SKIP_BUILD=1 skips it while iterating on tests that do not need dist/.
 */
export default function setup(): void {
  if (process.env.TOOLNEXUS_SKIP_BUILD === "1") return;
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  execFileSync(process.execPath, ["scripts/bundle.mjs"], { stdio: "inherit" });
}
