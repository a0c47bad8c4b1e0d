"use strict";
// Filter boxes and sortable columns; pages stay complete without this script.
document.querySelectorAll("[data-filter]").forEach(function (form) {
  var input = form.querySelector("input");
  var target = document.getElementById(form.getAttribute("data-filter"));
  var status = form.querySelector("[role=status]");
  if (!input || !target) { return; }
  form.hidden = false;
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  input.addEventListener("input", function () {
    var query = input.value.trim().toLowerCase();
    var items = target.querySelectorAll("[data-filter-item]");
    var shown = 0;
    items.forEach(function (item) {
      var match = (!query || item.textContent.toLowerCase().indexOf(query) !== -1) &&
        !item.hasAttribute("data-transport-off");
      item.hidden = !match;
      if (match) { shown += 1; }
    });
    if (status) { status.textContent = shown + " of " + items.length + " shown"; }
  });
});
document.querySelectorAll("table[data-sortable]").forEach(function (table) {
  var headers = table.querySelectorAll("thead th");
  headers.forEach(function (th, column) {
    var button = th.querySelector("button");
    if (!button) { return; }
    button.addEventListener("click", function () {
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      var numeric = th.hasAttribute("data-numeric");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-sort") || a.cells[column].textContent;
        var y = b.cells[column].getAttribute("data-sort") || b.cells[column].textContent;
        var order = numeric ? (parseFloat(x) || 0) - (parseFloat(y) || 0) : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
document.querySelectorAll("[data-transport-filter]").forEach(function (form) {
  // Shows the rows whose data-transport lists the chosen one; the text filter, if any, re-applies.
  var select = form.querySelector("select");
  var target = document.getElementById(form.getAttribute("data-transport-filter"));
  if (!select || !target) { return; }
  form.hidden = false;
  select.addEventListener("change", function () {
    var text = document.querySelector('[data-filter="' + form.getAttribute("data-transport-filter") + '"] input');
    target.querySelectorAll("[data-filter-item]").forEach(function (item) {
      var kinds = (item.getAttribute("data-transport") || "").split(" ");
      var off = select.value !== "" && kinds.indexOf(select.value) === -1;
      if (off) { item.setAttribute("data-transport-off", ""); } else { item.removeAttribute("data-transport-off"); }
      item.hidden = off;
    });
    if (text && text.value) { text.dispatchEvent(new Event("input")); }
  });
});
