// `npm run config-validator`: regenerates src/config/config-validator.generated.ts from the
// built ConfigSchema (run after `npm run build`; the npm script builds before and after).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { configValidatorSource } from "./lib/config-validator.mjs";

const root = path.resolve(import.meta.dirname, "..");
const { ConfigSchema } = await import(path.join(root, "dist/config/schema/index.js"));
writeFileSync(path.join(root, "src/config/config-validator.generated.ts"), configValidatorSource(ConfigSchema));
