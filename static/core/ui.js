/* Small behaviours every page may use, declared in the markup so that templates carry no
   inline script or style (the Content-Security-Policy allows scripts and styles from the app
   only):
   - <span data-percent="40">: a progress bar's width (set through the CSSOM, which the
     policy allows, instead of a style="" attribute, which it does not);
   - <select data-autosubmit>: submits its form on change;
   - <form data-confirm="Delete x?">: asks before submitting. */
(function () {
  "use strict";
  function apply(root) {
    root.querySelectorAll("[data-percent]").forEach(function (el) {
      var value = parseFloat(el.getAttribute("data-percent"));
      if (!isNaN(value)) el.style.width = Math.max(0, Math.min(100, value)) + "%";
    });
  }
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target instanceof HTMLSelectElement && target.hasAttribute("data-autosubmit") && target.form) {
      target.form.requestSubmit ? target.form.requestSubmit() : target.form.submit();
    }
  });
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.hasAttribute("data-confirm")) {
      if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
    }
  }, true);
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { apply(document); });
  } else {
    apply(document);
  }
  window.GECUI = { apply: apply };
})();
