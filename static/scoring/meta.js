/* Meta-evaluation page: select all / no metrics, the ranking method only for a campaign,
 * and hovering a system's point highlights that system in every scatter plot. */
(function () {
  "use strict";
  function wireSelect(button) {
    button.addEventListener("click", function () {
      var on = button.getAttribute("data-meta-select") === "all";
      document.querySelectorAll("input[name=metrics]").forEach(function (box) { box.checked = on; });
    });
  }
  function wireMethod() {
    var source = document.getElementById("id_human");
    var method = document.getElementById("id_method");
    if (!source || !method) { return; }
    function update() { method.disabled = source.value.indexOf("campaign:") !== 0; }
    source.addEventListener("change", update);
    update();
  }
  function wireHighlight() {
    var points = document.querySelectorAll("[data-testid=scatter] circle.point");
    points.forEach(function (point) {
      point.addEventListener("mouseenter", function () {
        var name = point.getAttribute("data-name");
        points.forEach(function (other) {
          other.classList.toggle("highlight", other.getAttribute("data-name") === name);
        });
      });
      point.addEventListener("mouseleave", function () {
        points.forEach(function (other) { other.classList.remove("highlight"); });
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-meta-select]").forEach(wireSelect);
    wireMethod();
    wireHighlight();
  });
})();
