/* New accounts: copy every username and one-time password at once, or
   download them as CSV. Built in the browser from the page: the server keeps no copy. */
(function () {
  "use strict";
  var text = document.getElementById("accounts-text");
  if (!text) return;
  var status = document.getElementById("accounts-status");
  function say(message) { if (status) status.textContent = message; }

  document.getElementById("copy-accounts").addEventListener("click", function () {
    var value = text.value;
    function fallback() {
      text.select();
      try { document.execCommand("copy"); say("Copied."); } catch (e) { say("Select the text and copy it."); }
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(value).then(function () { say("Copied."); }, fallback);
    } else {
      fallback();
    }
  });

  document.getElementById("download-accounts").addEventListener("click", function () {
    var blob = new Blob([text.value], { type: "text/csv;charset=utf-8" });
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "new-accounts.csv";
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 0);
    say("Downloaded new-accounts.csv.");
  });
})();
