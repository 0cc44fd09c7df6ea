/* Starts ReDoc (drf-spectacular-sidecar's pinned bundle, served by the app) on the schema
   named by the container, without inline script (Content-Security-Policy). */
(function () {
  "use strict";
  var container = document.getElementById("redoc-container");
  if (!container || !window.Redoc) return;
  window.Redoc.init(container.getAttribute("data-schema-url"), {}, container);
})();
