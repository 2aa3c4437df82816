/**
 * The console's one script, hand-written and served by toolnexus itself (`/admin/console.js`,
 * allowed by the page's CSP as `'self'`): no framework, no build step, works offline. Every
 * value it shows (source errors, tool names, pin diffs, audit fields) goes into the page with
 * `textContent`, never as HTML, so an upstream's `<script>` or `<img onerror>` is only text.
 * Kept as a string so the server serves it without reading a file next to the build.
 */
export const CONSOLE_SCRIPT = String.raw`"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var meta = document.querySelector('meta[name="csrf-token"]');
  var csrf = meta ? meta.getAttribute("content") : "";

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function row(cells) {
    var tr = document.createElement("tr");
    cells.forEach(function (c) {
      var td = document.createElement("td");
      if (c instanceof Node) td.appendChild(c); else td.textContent = c === undefined || c === null ? "" : String(c);
      tr.appendChild(td);
    });
    return tr;
  }
  function fill(tbody, rows, empty, cols) {
    tbody.replaceChildren();
    if (rows.length === 0) {
      var td = el("td", empty, "muted");
      td.colSpan = cols;
      var tr = document.createElement("tr");
      tr.appendChild(td);
      tbody.appendChild(tr);
    }
    rows.forEach(function (r) { tbody.appendChild(r); });
  }
  function problem(text) { var p = $("problem"); if (p) p.textContent = text || ""; }

  async function api(path, method) {
    var init = { method: method || "GET", credentials: "same-origin", headers: { accept: "application/json" } };
    if (init.method !== "GET") {
      init.headers["content-type"] = "application/json";
      init.headers["x-csrf-token"] = csrf;
      init.body = "{}";
    }
    var res = await fetch(path, init);
    if (res.status === 401) { location.reload(); throw new Error("signed out"); }
    var body = await res.json().catch(function () { return {}; });
    if (!res.ok) throw new Error((body.code ? body.code + ": " : "") + (body.detail || body.title || res.statusText));
    return body;
  }

  function age(iso) {
    var s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 120) return s + " s";
    if (s < 7200) return Math.round(s / 60) + " min";
    return Math.round(s / 3600) + " h";
  }
  function json(v) { return v === undefined ? "" : JSON.stringify(v); }

  function showSources(status) {
    $("service-state").textContent = "Service " + status.state + ", " + status.tools + " tools" + (status.error ? ": " + status.error : "") +
      (status.reload && !status.reload.ok ? " (last reload refused: " + (status.reload.error || "") + ")" : "");
    fill($("sources").tBodies[0], status.sources.map(function (s) {
      var tr = row([s.name, s.source, el("span", s.state, "state state-" + s.state), s.protocolVersion || "", s.tools, s.error || ""]);
      tr.dataset.source = s.name;
      if (s.state === "failed") tr.className = "failed";
      return tr;
    }), "No sources", 6);
  }

  function showPins(status) {
    var box = $("pins");
    box.replaceChildren();
    var pins = status.pins;
    $("pins-mode").textContent = pins ? "Pinning: " + pins.mode : "Pinning is off.";
    var pending = pins ? pins.pending : [];
    if (pending.length === 0) { box.appendChild(el("p", "Nothing waits for approval.", "muted")); return; }
    pending.forEach(function (p) {
      var card = el("article", undefined, "pin");
      card.dataset.tool = p.tool;
      var h = el("h3");
      h.appendChild(el("span", p.tool, "tool"));
      h.appendChild(el("span", " " + p.kind + (p.withheld ? ", withheld" : ", served"), "muted"));
      card.appendChild(h);
      var list = el("ul", undefined, "diff");
      (p.changes || []).forEach(function (c) {
        var li = el("li");
        li.appendChild(el("code", c.path));
        li.appendChild(el("span", " " + c.change + " ", "change"));
        if (c.before !== undefined) li.appendChild(el("del", json(c.before)));
        if (c.after !== undefined) li.appendChild(el("ins", json(c.after)));
        list.appendChild(li);
      });
      card.appendChild(list);
      var b = el("button", "Approve", "approve");
      b.type = "button";
      b.addEventListener("click", function () {
        b.disabled = true;
        api("/admin/pins/" + encodeURIComponent(p.tool) + "/approve", "POST").then(refresh, function (e) { problem(e.message); b.disabled = false; });
      });
      card.appendChild(b);
      box.appendChild(card);
    });
  }

  var cursors = [];
  var cursor;
  function showExecutions(page) {
    fill($("executions").tBodies[0], page.executions.map(function (o) {
      var x = o.execution;
      var b = el("button", "Cancel", "cancel");
      b.type = "button";
      b.addEventListener("click", function () {
        b.disabled = true;
        api("/admin/executions/" + encodeURIComponent(x.id) + "/cancel", "POST").then(refresh, function (e) { problem(e.message); b.disabled = false; });
      });
      var tr = row([o.owner, x.tool, el("span", x.status, "state state-" + x.status), age(x.createdAt), el("code", x.id), b]);
      tr.dataset.execution = x.id;
      return tr;
    }), "Nothing in flight", 6);
    var older = $("executions-older");
    older.hidden = !page.next;
    older.onclick = function () { cursors.push(cursor); cursor = page.next; refresh(); };
    var newer = $("executions-newer");
    newer.hidden = cursor === undefined;
    newer.onclick = function () { cursors = []; cursor = undefined; refresh(); };
  }

  function showMetrics(m) {
    fill($("metrics").tBodies[0], m.tools.map(function (t) {
      var tr = row([t.tool, t.calls, t.errors]);
      if (t.errors > 0) tr.className = "has-errors";
      return tr;
    }), "No calls yet", 3);
  }

  function auditRow(e) {
    var l = e.line;
    var tr = row([l.time, l.principal, l.transport, l.tool, l.outcome, l.status, l.durationMs]);
    tr.dataset.seq = e.seq;
    return tr;
  }
  var auditSeen = 0;
  function addAudit(e) {
    if (e.seq <= auditSeen) return;
    auditSeen = e.seq;
    var tbody = $("audit").tBodies[0];
    var placeholder = tbody.querySelector("td.muted");
    if (placeholder) tbody.replaceChildren();
    tbody.insertBefore(auditRow(e), tbody.firstChild);
    while (tbody.rows.length > 200) tbody.deleteRow(-1);
  }
  async function startAudit() {
    var tail = await api("/admin/audit");
    if (!tail.enabled) {
      fill($("audit").tBodies[0], [], "No audit trail is configured (audit: in the config).", 7);
      return;
    }
    fill($("audit").tBodies[0], [], "No calls audited yet", 7);
    tail.lines.forEach(addAudit);
    var live = $("audit-live");
    var source = new EventSource("/admin/audit/events");
    source.addEventListener("open", function () { live.textContent = "live"; });
    source.addEventListener("error", function () { live.textContent = "reconnecting"; });
    source.addEventListener("audit", function (ev) { addAudit(JSON.parse(ev.data)); });
  }

  var busy = false;
  async function refresh() {
    if (busy) return;
    busy = true;
    try {
      var q = "/admin/executions?state=active&limit=25" + (cursor ? "&cursor=" + encodeURIComponent(cursor) : "");
      var got = await Promise.all([api("/status"), api(q), api("/admin/metrics")]);
      showSources(got[0]);
      showPins(got[0]);
      showExecutions(got[1]);
      showMetrics(got[2]);
      $("updated").textContent = "updated " + new Date().toLocaleTimeString();
      problem("");
    } catch (e) {
      problem(e.message);
    } finally {
      busy = false;
    }
  }

  function signOut() {
    fetch("/admin/session/end", { method: "POST", credentials: "same-origin", headers: { "x-csrf-token": csrf } }).then(function () { location.assign("/admin"); });
  }

  function signIn(ev) {
    ev.preventDefault();
    var out = $("signin-error");
    out.textContent = "";
    fetch("/admin/session", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ credential: $("credential").value }),
    }).then(async function (res) {
      if (res.ok) return location.assign("/admin");
      var body = await res.json().catch(function () { return {}; });
      out.textContent = (body.code ? body.code + ": " : "") + (body.detail || res.statusText);
    }, function (e) { out.textContent = e.message; });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var so = $("signout");
    if (so) so.addEventListener("click", signOut);
    if ($("signin")) { $("signin").addEventListener("submit", signIn); return; }
    if (!$("console")) return;
    $("refresh").addEventListener("click", refresh);
    refresh();
    startAudit().catch(function (e) { problem(e.message); });
    setInterval(refresh, 5000);
  });
})();
`;
