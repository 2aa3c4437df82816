/**
 * The console's HTML, rendered on the server: a shell whose panels the console's script
 * (console/script.ts) fills with `textContent` only. What the server itself writes into the
 * page (the caller id, the CSRF token, a message) goes through {@link escapeHtml}; nothing
 * from an upstream is ever put in here.
 */

/** The Content-Security-Policy of every console response: no inline script or style, nothing from elsewhere. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** `text` safe in HTML text and in a double-quoted attribute. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function shell(title: string, body: string, head = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
${head}<link rel="stylesheet" href="/admin/console.css">
<script src="/admin/console.js" defer></script>
</head>
<body>
<header><h1>toolnexus <span>operator console</span></h1></header>
${body}
</body>
</html>
`;
}

/** The sign-in form: an operator key (or bearer token) entered once. `notice` says why a session ended. */
export function signInPage(notice?: string): string {
  return shell(
    "toolnexus console: sign in",
    `<main id="signin-view">
<form id="signin" autocomplete="off">
<h2>Sign in</h2>
<p>Paste an operator API key (<code>operator: true</code>) or a bearer token whose policy grants <code>operator</code>. It is kept only in a sealed, HttpOnly session cookie.</p>
${notice ? `<p class="notice" id="signin-notice">${escapeHtml(notice)}</p>` : ""}<label for="credential">Operator key or token</label>
<input id="credential" name="credential" type="password" required autofocus>
<button type="submit">Sign in</button>
<p class="error" id="signin-error" role="alert"></p>
</form>
</main>`,
  );
}

/** The console itself for operator `caller`; `csrf` is the session's token (absent without a session: read-only). */
export function consolePage(caller: string, csrf: string | undefined, signedIn: boolean): string {
  const head = `<meta name="csrf-token" content="${escapeHtml(csrf ?? "")}">\n`;
  return shell(
    "toolnexus console",
    `<nav><span id="who">${escapeHtml(caller)}</span>${signedIn ? ' <button id="signout" type="button">Sign out</button>' : ""} <button id="refresh" type="button">Refresh</button> <span id="updated" class="muted"></span> <span id="problem" class="error" role="alert"></span></nav>
<main id="console">
<section id="sources-panel"><h2>Sources</h2><p id="service-state" class="muted"></p>
<table id="sources"><thead><tr><th>Name</th><th>Kind</th><th>Status</th><th>Revision</th><th>Tools</th><th>Last error</th></tr></thead><tbody></tbody></table></section>
<section id="pins-panel"><h2>Pins waiting for approval</h2><p id="pins-mode" class="muted"></p><div id="pins"></div></section>
<section id="executions-panel"><h2>Executions and tasks in flight</h2>
<table id="executions"><thead><tr><th>Owner</th><th>Tool</th><th>Status</th><th>Age</th><th>Id</th><th></th></tr></thead><tbody></tbody></table>
<p><button id="executions-newer" type="button" hidden>Newest</button> <button id="executions-older" type="button" hidden>Older</button></p></section>
<section id="metrics-panel"><h2>Calls and errors per tool</h2>
<table id="metrics"><thead><tr><th>Tool</th><th>Calls</th><th>Errors</th></tr></thead><tbody></tbody></table></section>
<section id="audit-panel"><h2>Audit tail <span id="audit-live" class="muted"></span></h2>
<table id="audit"><thead><tr><th>Time</th><th>Principal</th><th>Transport</th><th>Tool</th><th>Outcome</th><th>Status</th><th>ms</th></tr></thead><tbody></tbody></table></section>
</main>`,
    head,
  );
}

/** The page a signed-in caller without `operator` gets (403): nothing of the service. */
export function forbiddenPage(): string {
  return shell(
    "toolnexus console: forbidden",
    `<main><h2>Forbidden</h2><p>This console is for operator callers only.</p><p><button id="signout" type="button">Sign out</button></p></main>`,
  );
}
