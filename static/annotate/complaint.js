/* The complaint page: a live diff under each reference box of the resolution form. */
(function () {
  "use strict";
  var configEl = document.getElementById("page-config");
  if (!configEl) return;
  var config = JSON.parse(configEl.textContent);
  document.querySelectorAll("#resolve-references .edit-box").forEach(function (area) {
    GEC.attachLiveDiff(area, area.parentElement.querySelector(".live-diff"), config.source, undefined, config.language);
  });
})();
