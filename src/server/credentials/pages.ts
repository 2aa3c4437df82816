/**
 * The few pages a login shows in the caller's browser: the sign-in that proves the browser is
 * the caller, and the outcome. Every value rendered is escaped; no script runs.
 */

/**
 * Security headers of every login page: no script, no framing, no caching (no `form-action`:
 * Chromium applies it to the redirect to the authorization server too), and no referrer
 * beyond this origin (the URL holds state; `same-origin`, not `no-referrer`, so the sign-in
 * form's POST carries a real Origin, not `null`, through the Origin guard).
 */
export const PAGE_HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem}input{width:100%;padding:.4rem;margin:.4rem 0}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** The sign-in of a login link: the caller's API key or access token, so a forwarded link attaches nothing to another account. */
export function signInPage(source: string, state: string): string {
  return page(
    `Connect ${source}`,
    `<p>Sign in to the gateway as the caller who asked to connect <strong>${escapeHtml(source)}</strong>: enter your API key or access token.</p>
<form method="post" action="/oauth/start"><input type="hidden" name="state" value="${escapeHtml(state)}">
<label>API key or access token <input id="credential" name="credential" type="password" autocomplete="off" required></label>
<button id="continue" type="submit">Continue</button></form>`,
  );
}

/** The end of a login: connected, or why not. */
export function outcomePage(title: string, message: string): string {
  return page(title, `<p id="outcome">${escapeHtml(message)}</p>`);
}
