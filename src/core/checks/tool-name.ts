/**
 * What a tool name may be: MCP's limit of 128 characters, and only characters
 * every provider's function-calling API and a URL path segment accept unescaped.
 */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
