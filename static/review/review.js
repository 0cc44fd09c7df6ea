/* Review page: live diffs for edited and added references, add/remove boxes, active time,
   one submit per click. */
(function () {
  "use strict";
  var configEl = document.getElementById("page-config");
  var form = document.getElementById("review-form");
  if (!configEl || !form) return;
  var config = JSON.parse(configEl.textContent);
  var source = config.source;
  var elapsed = GEC.activeTimer();

  form.querySelectorAll(".edit-box").forEach(function (area) {
    var output = area.parentElement.querySelector(".live-diff");
    GEC.attachLiveDiff(area, output, source, undefined, config.language);
    // The diff above already shows the annotator's text; show this one once it is edited.
    area.addEventListener("input", function () { output.classList.remove("untouched"); });
  });

  document.getElementById("add-reference").addEventListener("click", function () {
    var box = document.getElementById("added-template").content.firstElementChild.cloneNode(true);
    document.getElementById("added").appendChild(box);
    var area = box.querySelector("textarea");
    GEC.attachLiveDiff(area, box.querySelector(".live-diff"), source, undefined, config.language);
    box.querySelector(".remove-added").addEventListener("click", function () { box.remove(); });
    area.focus();
  });

  form.addEventListener("submit", function (event) {
    if (form.dataset.submitting) { event.preventDefault(); return; }
    form.dataset.submitting = "1";
    document.getElementById("review-submit").disabled = true;
    document.getElementById("time-input").value = String(elapsed());
  });
})();
