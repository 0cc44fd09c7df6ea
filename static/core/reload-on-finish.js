/* Pages that show a background job reload once it has finished (progress.js fires the
   event), so the result replaces the progress bar. */
document.addEventListener("job-finished", function () { window.location.reload(); });
