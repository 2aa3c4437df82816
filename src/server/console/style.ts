/** The console's stylesheet, served as `/admin/console.css` (the CSP allows no inline style). */
export const CONSOLE_STYLE = `
:root { color-scheme: light dark; --fg: #1d2327; --muted: #646970; --line: #dcdcde; --bad: #b32d2e; --ok: #00713b; --bg: #fff; --soft: #f6f7f7; }
@media (prefers-color-scheme: dark) { :root { --fg: #e8eaed; --muted: #9aa0a6; --line: #3c4043; --bad: #f28b82; --ok: #81c995; --bg: #202124; --soft: #2a2b2e; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 10px 20px; border-bottom: 1px solid var(--line); }
h1 { margin: 0; font-size: 18px; } h1 span { color: var(--muted); font-weight: normal; }
h2 { font-size: 15px; margin: 0 0 8px; } h3 { font-size: 14px; margin: 0 0 6px; }
nav { padding: 8px 20px; display: flex; gap: 10px; align-items: center; border-bottom: 1px solid var(--line); }
main { padding: 12px 20px; display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; }
#signin-view { display: block; max-width: 520px; }
section { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; }
th { white-space: nowrap; }
#sources-panel, #audit-panel { grid-column: 1 / -1; }
#sources td:last-child { width: 55%; }
th { font-weight: 600; color: var(--muted); }
.muted { color: var(--muted); }
.error, .failed td, .state-failed, .state-cancelled, .has-errors td:last-child { color: var(--bad); }
.state-connected, .state-succeeded { color: var(--ok); }
.state { font-weight: 600; }
.pin { border-top: 1px solid var(--line); padding: 6px 0; }
.diff { margin: 4px 0 8px; padding-left: 18px; }
del { color: var(--bad); } ins { color: var(--ok); text-decoration: none; margin-left: 6px; }
code { font: 12px ui-monospace, monospace; }
button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--soft); color: var(--fg); cursor: pointer; }
button:disabled { opacity: .5; }
form label { display: block; margin: 10px 0 4px; }
form input { width: 100%; padding: 6px; font: inherit; }
form button { margin-top: 10px; }
`;
