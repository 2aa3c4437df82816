/**
 * The portal's search box, served as `/docs/static/theme/toolnexus-search.js` after the portal
 * script: it asks `GET /tools?q=` (ranked over the tools the visitor's key may use, with the
 * page's `?bundle=`) and lists the matches; a click opens that tool's operation below and
 * scrolls to it. Every name and description is set as text, never as HTML: they are upstreams' words.
 * Plain ES2020 for the browser: no bundler, no CDN.
 */
export const PORTAL_SEARCH_SCRIPT = `"use strict";
(function () {
  function keyHeaders() {
    var auth = window.ui ? window.ui.authSelectors.authorized() : null;
    if (!auth) return {};
    var bearer = auth.getIn(["bearer", "value"]);
    if (bearer) return { Authorization: "Bearer " + bearer };
    var apiKey = auth.getIn(["apiKey", "value"]);
    return apiKey ? { "X-API-Key": apiKey } : {};
  }
  function searchUrl(q) {
    var url = new URL("../tools", window.location.href.replace(/\\/?([?#].*)?$/, "/"));
    url.searchParams.set("q", q);
    url.searchParams.set("limit", "20");
    var bundle = new URLSearchParams(window.location.search).get("bundle");
    if (bundle) url.searchParams.set("bundle", bundle);
    return url.toString();
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  window.addEventListener("load", function () {
    var box = el("div", "toolnexus-search");
    box.style.cssText = "max-width:1460px;margin:12px auto;padding:0 20px;font-family:sans-serif";
    var input = el("input");
    input.type = "search";
    input.placeholder = "Search tools (name, description, parameters)";
    input.setAttribute("aria-label", "Search tools");
    input.style.cssText = "width:100%;padding:8px;font-size:14px;box-sizing:border-box";
    var status = el("p", "toolnexus-search-status");
    status.setAttribute("role", "status");
    var list = el("ul", "toolnexus-search-results");
    list.style.cssText = "list-style:none;padding:0;margin:4px 0";
    box.append(input, status, list);
    var root = document.getElementById("swagger-ui");
    root.parentNode.insertBefore(box, root);
    var timer;
    var asked = 0;
    // The tool's operation (a name is [A-Za-z0-9_-]: nothing to escape in the selector).
    function open(name) {
      var path = document.querySelector('.opblock-summary-path[data-path="/tools/' + name + '/execute"]');
      var block = path ? path.closest(".opblock") : null;
      if (!block) return;
      if (!block.classList.contains("is-open")) (block.querySelector(".opblock-summary-control") || block.querySelector(".opblock-summary")).click();
      block.scrollIntoView();
    }
    function show(tools) {
      list.replaceChildren();
      status.textContent = tools.length ? "" : "No tool matches.";
      tools.forEach(function (t) {
        var item = el("li", "toolnexus-search-result");
        item.style.cssText = "padding:4px 0;cursor:pointer";
        var name = el("code", "toolnexus-search-name", t.name);
        var description = el("span", "toolnexus-search-description", t.description ? " — " + t.description : "");
        item.append(name, description);
        item.addEventListener("click", function () {
          open(t.name);
        });
        list.append(item);
      });
    }
    function run() {
      var q = input.value.trim();
      var mine = ++asked;
      if (!q) {
        list.replaceChildren();
        status.textContent = "";
        return;
      }
      fetch(searchUrl(q), { headers: keyHeaders() })
        .then(function (res) {
          return res.json().then(function (body) {
            if (mine !== asked) return;
            if (!res.ok) {
              list.replaceChildren();
              status.textContent = body.title || "Search failed (" + res.status + ")";
              return;
            }
            show(body.tools || []);
          });
        })
        .catch(function () {
          if (mine === asked) status.textContent = "Search failed.";
        });
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(run, 150);
    });
  });
})();
`;
