/**
 * The browser side of the developer portal, served as `/docs/static/theme/toolnexus-portal.js`.
 * It loads after the stock initializer of @fastify/swagger-ui and replaces its `window.onload`,
 * because the stock one cannot send a key with the document request nor reload it after
 * Authorize. Plain ES2020 for the browser: no bundler, no CDN.
 *
 * - The document comes from `./json`: the generic routes for an anonymous visitor when keys are
 *   configured, this caller's per-tool document once a key is sent with it.
 * - \`/docs/?bundle=<name>\` shows one bundle's tools: the page's query goes to \`./json\`.
 * - Authorize / Logout re-fetch the document, sending the key the visitor entered (Bearer or
 *   X-API-Key, whichever scheme they filled in).
 * - A description is an upstream's text: its markdown is rendered, its HTML shown as text (a
 *   tool whose description carries \`<img onerror>\` shows those characters, not an image).
 */
export const PORTAL_SCRIPT = `"use strict";
(function () {
  function docUrl() {
    var here = window.location.pathname;
    // ?bundle=<name> on the page shows that bundle's tools (the document takes the same query).
    return (here.endsWith("/") ? here : here + "/") + "json" + window.location.search;
  }
  var ui;
  function keyHeaders() {
    var auth = ui ? ui.authSelectors.authorized() : null;
    if (!auth) return {};
    var bearer = auth.getIn(["bearer", "value"]);
    if (bearer) return { Authorization: "Bearer " + bearer };
    var apiKey = auth.getIn(["apiKey", "value"]);
    return apiKey ? { "X-API-Key": apiKey } : {};
  }
  function reloadDocument(system) {
    system.specActions.download(docUrl());
  }
  // Every "<" becomes "&lt;" before the markdown renderer sees it, so no tag is ever made.
  var TextOnlyHtml = function () {
    return { wrapComponents: { Markdown: function (Orig, system) {
      return function (props) {
        var source = typeof props.source === "string" ? props.source.replace(/</g, "&lt;") : props.source;
        return system.React.createElement(Orig, Object.assign({}, props, { source: source }));
      };
    } } };
  };
  var ReloadOnAuth = function () {
    return { statePlugins: { auth: { wrapActions: {
      authorize: function (orig, system) { return function (payload) { var r = orig(payload); reloadDocument(system); return r; }; },
      logout: function (orig, system) { return function (payload) { var r = orig(payload); reloadDocument(system); return r; }; },
    } } } };
  };
  window.onload = function () {
    ui = SwaggerUIBundle({
      url: docUrl(),
      dom_id: "#swagger-ui",
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl, ReloadOnAuth, TextOnlyHtml],
      layout: "StandaloneLayout",
      validatorUrl: null,
      tryItOutEnabled: true,
      displayRequestDuration: true,
      requestInterceptor: function (req) {
        if (req.loadSpec) Object.assign(req.headers, keyHeaders());
        return req;
      },
    });
    window.ui = ui;
  };
})();
`;
