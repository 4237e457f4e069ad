/* ratingdb published site: filters and sorting for a list page. Without JavaScript the page shows the
   whole list in rating order; this script only hides rows and reorders them. */
(function () {
  "use strict";
  var table = document.getElementById("list");
  var form = document.getElementById("filters");
  if (!table || !form) { return; }
  var shown = document.getElementById("shown");
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  var year = parseInt(table.getAttribute("data-year"), 10);
  var column = {};
  for (var i = 0; i < heads.length; i++) { column[heads[i].getAttribute("data-key")] = i; }

  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  function number(text) {
    var value = parseInt(text.replace("\u2212", "-"), 10);
    return isNaN(value) ? null : value;
  }

  var entries = Array.prototype.map.call(body.rows, function (row, index) {
    var cells = row.cells;
    function text(key) { return cells[column[key]].textContent.trim(); }
    return {
      row: row, index: index, name: fold(text("name")), fed: text("fed"), sex: text("sex"),
      club: "club" in column ? text("club") : "",  // a list whose players have no club has no club column
      // the other spellings of the name on record (data-aka, "|" between them): found by the name filter
      aka: (row.getAttribute("data-aka") || "").split("|").filter(Boolean).map(fold),
      born: number(text("born")), rating: number(text("rating")),
      flag: "flag" in column ? text("flag") : "", cells: cells  // a list without flags has no flag column
    };
  });

  function field(id) { return document.getElementById(id); }

  function matches(entry, filter) {
    if (filter.name && entry.name.indexOf(filter.name) < 0 &&
        !entry.aka.some(function (aka) { return aka.indexOf(filter.name) >= 0; })) { return false; }
    if (filter.fed && entry.fed !== filter.fed) { return false; }
    if (filter.club && entry.club !== filter.club) { return false; }
    if (filter.group === "women" && entry.sex !== "F") { return false; }
    if (filter.group === "juniors" && (entry.born === null || year - entry.born > 20)) { return false; }
    if (filter.group === "seniors" && (entry.born === null || year - entry.born < 65)) { return false; }
    if (filter.active && (entry.flag === "i" || entry.flag === "wi")) { return false; }
    if (filter.min !== null && (entry.rating === null || entry.rating < filter.min)) { return false; }
    if (filter.max !== null && (entry.rating === null || entry.rating > filter.max)) { return false; }
    return true;
  }

  function apply() {
    var filter = {
      name: fold(field("f-name").value.trim()), fed: field("f-fed").value, group: field("f-group").value,
      club: field("f-club") ? field("f-club").value : "",
      active: !!field("f-active") && field("f-active").checked, min: number(field("f-min").value), max: number(field("f-max").value)
    };
    var count = 0;
    entries.forEach(function (entry) {
      var visible = matches(entry, filter);
      entry.row.hidden = !visible;
      if (visible) { count++; }
    });
    // The sentence comes translated from the page, with the count written as the page's locale writes it.
    var sentence = shown.getAttribute("data-shown") || "{shown}";
    shown.textContent = sentence.replace("{shown}", count.toLocaleString(shown.getAttribute("data-locale") || "en"));
  }

  var sortKey = null;
  var sortDescending = false;
  function sortBy(th) {
    var key = th.getAttribute("data-key");
    var numeric = th.getAttribute("data-type") === "num";
    // A new column sorts best first: numbers high to low (rank and birth year low to high), text A to Z.
    sortDescending = key === sortKey ? !sortDescending : numeric && key !== "rank" && key !== "born";
    sortKey = key;
    var at = column[key];
    var values = entries.map(function (entry) {
      var text = entry.cells[at].textContent.trim();
      return numeric ? number(text) : (text === "" ? null : fold(text));
    });
    var order = entries.map(function (entry, index) { return index; });
    order.sort(function (a, b) {
      var x = values[a], y = values[b];
      if (x === null || y === null) {  // blanks last either way
        return x === y ? entries[a].index - entries[b].index : (x === null ? 1 : -1);
      }
      var cmp = numeric ? x - y : x.localeCompare(y);
      if (sortDescending) { cmp = -cmp; }
      return cmp || entries[a].index - entries[b].index;
    });
    var fragment = document.createDocumentFragment();
    order.forEach(function (index) { fragment.appendChild(entries[index].row); });
    body.appendChild(fragment);
    Array.prototype.forEach.call(heads, function (head) { head.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", sortDescending ? "descending" : "ascending");
  }

  Array.prototype.forEach.call(heads, function (th) {
    var button = document.createElement("button");
    button.type = "button";
    button.title = "Sort by " + th.textContent.toLowerCase();
    while (th.firstChild) { button.appendChild(th.firstChild); }
    th.appendChild(button);
    button.addEventListener("click", function () { sortBy(th); });
  });
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.hidden = false;
  apply();
}());
