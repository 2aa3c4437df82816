import { createRequire } from "node:module";

/**
 * The toolnexus version, from package.json. The one place that reads it: the bundled serve
 * path (scripts/bundle.mjs) swaps this module for the literal, since a bundle's location says
 * nothing about where package.json is.
 */
export const VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;
