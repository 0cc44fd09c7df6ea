/* Progress bars for background jobs.
 * Markup: <div data-job-url="/jobs/12/" data-done-url="(optional redirect)">
 *           <div class="progress"><span style="width:0"></span></div>
 *           <p data-job-message></p></div>
 * Polls the job's JSON state every second until it is finished. */
(function () {
  "use strict";
  function poll(box) {
    var url = box.getAttribute("data-job-url");
    var bar = box.querySelector(".progress > span");
    var msg = box.querySelector("[data-job-message]");
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json().then(function (body) { return { ok: r.ok, body: body }; }); })
      .then(function (res) {
        var s = res.body;
        if (!res.ok) { if (msg) { msg.textContent = s.detail || "error"; } return; }
        if (bar) { bar.style.width = s.percent + "%"; bar.setAttribute("aria-valuenow", s.percent); }
        box.setAttribute("data-job-status", s.status);
        if (msg) {
          // A job that never counted its work says so in words, not "0/0".
          var text = s.total ? s.status + " " + s.done + "/" + s.total : s.status;
          if (s.message) { text += ": " + s.message; }
          msg.textContent = text;
        }
        if (s.finished) {
          box.dispatchEvent(new CustomEvent("job-finished", { detail: s, bubbles: true }));
          var next = box.getAttribute("data-done-url");
          if (next && s.status === "done") { window.location.href = next; }
          return;
        }
        window.setTimeout(function () { poll(box); }, 1000);
      })
      .catch(function () { window.setTimeout(function () { poll(box); }, 3000); });
  }
  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) { return input.value; }
    var match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  /* <button data-job-cancel-url="/jobs/12/cancel/">Cancel</button>: asks the work to stop. */
  function wireCancel(button) {
    button.addEventListener("click", function (event) {
      event.preventDefault();
      button.disabled = true;
      fetch(button.getAttribute("data-job-cancel-url"), {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" }
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-job-url]").forEach(poll);
    document.querySelectorAll("[data-job-cancel-url]").forEach(wireCancel);
  });
})();
