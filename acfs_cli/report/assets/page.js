/* acfs report page: sortable tables, tabs, and the figures drawn as SVG from the page's data.
   No library and no network: everything the page needs is in it. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"];
  var BIG = 1e307;  /* the data's +inf: no incumbent yet */
  var DATA = JSON.parse(document.getElementById("figdata").textContent);
  var tip = document.getElementById("tip");

  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function h(tag, cls, parent, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    if (parent) { parent.appendChild(e); }
    return e;
  }
  function finite(v) { return v !== null && Math.abs(v) < BIG; }
  function fmt(v) {
    if (v === null) { return "-"; }
    if (Math.abs(v) >= BIG) { return "no answer yet"; }
    var a = Math.abs(v);
    if (a >= 1000) { return Math.round(v).toLocaleString("en-US"); }
    if (a >= 100) { return v.toFixed(0); }
    if (a >= 1) { return v.toPrecision(3); }
    return v === 0 ? "0" : v.toPrecision(3);
  }
  function withTip(node, text) {
    node.addEventListener("mouseenter", function (ev) {
      tip.textContent = text; tip.hidden = false; move(ev);
    });
    node.addEventListener("mousemove", move);
    node.addEventListener("mouseleave", function () { tip.hidden = true; });
  }
  function move(ev) {
    tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 370) + "px";
    tip.style.top = (ev.clientY + 12) + "px";
  }

  /* ---- tables ---- */
  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var up = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th.sort").forEach(function (o) { o.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    function key(r) {
      var c = r.cells[col];
      if (!c) { return [2, ""]; }
      var v = c.getAttribute("data-v");
      if (v !== null) { return [0, parseFloat(v)]; }
      var t = c.textContent.trim();
      return t === "-" || t === "" ? [2, ""] : [1, t];
    }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b);
      if (x[0] !== y[0]) { return x[0] - y[0]; }  /* numbers, then text, blanks last */
      if (x[0] === 2) { return 0; }
      var d = x[0] === 0 ? x[1] - y[1] : x[1].localeCompare(y[1]);
      return up ? d : -d;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("th.sort").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });

  /* ---- tabs (several experiments) ---- */
  var buttons = document.querySelectorAll("nav.tabs button");
  function show(which) {
    var main = document.querySelector("main");
    main.classList.toggle("side", which === "all");
    document.querySelectorAll("section.experiment").forEach(function (s) {
      s.hidden = !(which === "all" || s.id === which);
    });
    buttons.forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-tab") === which); });
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () { show(b.getAttribute("data-tab")); });
  });
  if (buttons.length) { show("x0"); }

  /* ---- scales and panels ---- */
  function symlog(v) { return (v < 0 ? -1 : 1) * Math.log10(1 + Math.abs(v) / 0.1); }
  function scale(kind, lo, hi, a, b) {
    var f = kind === "log" ? Math.log10 : kind === "symlog" ? symlog : function (v) { return v; };
    var fl = f(lo), fh = f(hi);
    if (fh === fl) { fh = fl + 1; }
    var s = function (v) { return a + (f(v) - fl) / (fh - fl) * (b - a); };
    s.lo = lo; s.hi = hi; s.kind = kind;
    return s;
  }
  function ticks(s) {
    var out = [], v;
    if (s.kind === "log") {
      for (var e = Math.floor(Math.log10(s.lo)); e <= Math.ceil(Math.log10(s.hi)); e++) {
        [1, 2, 5].forEach(function (m) {
          v = m * Math.pow(10, e);
          if (v >= s.lo * 0.999 && v <= s.hi * 1.001) { out.push(v); }
        });
      }
      if (out.length > 7) { out = out.filter(function (t) { return String(t).charAt(0) === "1"; }); }
    } else if (s.kind === "symlog") {
      [-100, -10, -1, 0, 1, 10, 100, 1000, 10000].forEach(function (t) {
        if (t >= s.lo && t <= s.hi) { out.push(t); }
      });
    } else {
      var step = Math.pow(10, Math.floor(Math.log10((s.hi - s.lo) || 1)));
      if ((s.hi - s.lo) / step < 3) { step /= 4; } else if ((s.hi - s.lo) / step < 6) { step /= 2; }
      for (v = Math.ceil(s.lo / step) * step; v <= s.hi + 1e-12; v += step) { out.push(+v.toPrecision(6)); }
    }
    return out;
  }
  function label(v) {
    if (Math.abs(v) >= 1000) { return (v / 1000).toLocaleString("en-US") + "k"; }
    return String(+v.toPrecision(3));
  }
  var W = 330, H = 230, M = {l: 48, r: 10, t: 22, b: 36};
  function panel(parent, title, xs, ys, xlabel, ylabel, wide) {
    var w = wide ? 460 : W;
    var svg = el("svg", {width: w, height: H, viewBox: "0 0 " + w + " " + H}, parent);
    var sx = scale(xs[0], xs[1], xs[2], M.l, w - M.r), sy = scale(ys[0], ys[1], ys[2], H - M.b, M.t);
    el("text", {x: M.l, y: 14, "class": "title"}, svg, title);
    var g = el("g", {"class": "axis"}, svg);
    (xs[0] === "cat" ? [] : ticks(sx)).forEach(function (t) {
      el("line", {x1: sx(t), x2: sx(t), y1: M.t, y2: H - M.b, "class": "grid"}, g);
      el("text", {x: sx(t), y: H - M.b + 13, "text-anchor": "middle"}, g, label(t));
    });
    ticks(sy).forEach(function (t) {
      el("line", {x1: M.l, x2: w - M.r, y1: sy(t), y2: sy(t), "class": "grid"}, g);
      el("text", {x: M.l - 4, y: sy(t) + 4, "text-anchor": "end"}, g, label(t));
    });
    el("line", {x1: M.l, x2: w - M.r, y1: H - M.b, y2: H - M.b}, g);
    el("line", {x1: M.l, x2: M.l, y1: M.t, y2: H - M.b}, g);
    el("text", {x: (M.l + w - M.r) / 2, y: H - 6, "text-anchor": "middle"}, g, xlabel);
    el("text", {x: 11, y: (M.t + H - M.b) / 2, "text-anchor": "middle",
                transform: "rotate(-90 11 " + (M.t + H - M.b) / 2 + ")"}, g, ylabel);
    return {svg: svg, sx: sx, sy: sy};
  }
  function path(points) {
    return points.map(function (p, i) { return (i ? "L" : "M") + p[0].toFixed(1) + "," + p[1].toFixed(1); }).join("");
  }

  /* ---- each figure ---- */
  function methods(x) {
    var out = {};
    DATA[x].methods.forEach(function (m, i) { out[m.config] = {name: m.name, colour: COLOURS[i % COLOURS.length]}; });
    return out;
  }
  function legend(parent, ms, configs) {
    var box = h("div", "legend", parent);
    Object.keys(ms).filter(function (c) { return configs.indexOf(c) >= 0; }).forEach(function (c) {
      var s = h("span", "", box);
      h("i", "", s).style.background = ms[c].colour;
      s.appendChild(document.createTextNode(ms[c].name));
    });
  }
  function select(controls, name, values, text, onchange) {
    var lab = h("label", "", controls, name + " ");
    var sel = h("select", "", lab);
    values.forEach(function (v) { var o = h("option", "", sel, text(v)); o.value = v; });
    sel.addEventListener("change", onchange);
    return sel;
  }
  function uniq(list) { return list.filter(function (v, i) { return list.indexOf(v) === i; }); }
  function qualityRange(values) {
    var f = values.filter(finite);
    var lo = Math.min.apply(null, f.concat([0])), hi = Math.max.apply(null, f.concat([1]));
    return [lo < 0 ? 2 * lo : -0.02, Math.max(2 * hi, 1)];
  }

  function progress(fig, x, budget) {
    var ms = methods(x), box = fig.panels, used = [];
    DATA[x].progress.filter(function (p) { return p.budget === budget; }).forEach(function (p) {
      var draws = [], vals = [];
      p.lines.forEach(function (l) {
        draws = draws.concat(l.draws.filter(function (d) { return d > 0; }));
        vals = vals.concat(l.median, l.lo, l.hi);
      });
      var yr = qualityRange(vals);
      var P = panel(box, p.setting, ["log", Math.min.apply(null, draws) / 1.3, Math.max.apply(null, draws) * 1.3],
                    ["symlog", yr[0], yr[1]], "draws", p.measure);
      [1, 5].forEach(function (t) {
        if (t < yr[1]) { el("line", {x1: M.l, x2: W - M.r, y1: P.sy(t), y2: P.sy(t), "class": "thr"}, P.svg); }
      });
      p.lines.forEach(function (l) {
        var c = ms[l.config].colour, band = [], top = [], bottom = [], line = [];
        used.push(l.config);
        l.draws.forEach(function (d, i) {
          if (d > 0 && finite(l.lo[i]) && finite(l.hi[i])) {
            top.push([P.sx(d), P.sy(l.hi[i])]); bottom.unshift([P.sx(d), P.sy(l.lo[i])]);
          }
        });
        if (top.length > 1 && l.n.some(function (n) { return n > 1; })) {
          band = top.concat(bottom);
          el("path", {d: path(band) + "Z", fill: c, "fill-opacity": 0.13, stroke: "none", "class": "mark band"}, P.svg);
        }
        l.draws.forEach(function (d, i) { if (d > 0 && finite(l.median[i])) { line.push([P.sx(d), P.sy(l.median[i])]); } });
        if (line.length > 1) { el("path", {d: path(line), fill: "none", stroke: c, "stroke-width": 1.8, "class": "mark line"}, P.svg); }
        l.draws.forEach(function (d, i) {
          if (!(d > 0) || !finite(l.median[i])) { return; }
          var dot = el("circle", {cx: P.sx(d), cy: P.sy(l.median[i]), r: 3.5, fill: "#fff", stroke: c,
                                  "stroke-width": 1.6, "class": "mark point"}, P.svg);
          withTip(dot, ms[l.config].name + "\n" + p.setting + ", budget " + budget.toLocaleString("en-US") +
                  "\ndraws " + fmt(d) + " (" + Math.round(100 * l.fraction[i]) + " % of the budget)" +
                  "\nmedian " + fmt(l.median[i]) + " %, 25-75 %: [" + fmt(l.lo[i]) + "; " + fmt(l.hi[i]) + "]" +
                  "\nreplications " + l.n[i]);
        });
      });
    });
    legend(fig.legend, ms, uniq(used));
  }

  function steps(P, xs, ys) {
    var pts = [];
    xs.forEach(function (v, i) {
      if (i) { pts.push([P.sx(v), P.sy(ys[i - 1])]); }
      pts.push([P.sx(v), P.sy(ys[i])]);
    });
    return path(pts);
  }
  function solvability(fig, x, budget, tol) {
    var ms = methods(x), used = [];
    [["cdf", "CDF solvability: share of problem x replication solved"],
     ["quantile", "Quantile solvability: share of problems, median solve time"]].forEach(function (k) {
      var rows = DATA[x].solvability.filter(function (r) { return r.budget === budget && r.tol === tol && r.kind === k[0]; });
      if (!rows.length) { return; }
      var P = panel(fig.panels, k[1], ["lin", 0, 1], ["lin", 0, 1],
                    "fraction of the budget", "share solved within " + Math.round(100 * tol) + " %", true);
      rows.forEach(function (r) {
        var c = ms[r.config].colour;
        used.push(r.config);
        var line = el("path", {d: steps(P, r.x, r.y), fill: "none", stroke: c, "stroke-width": 1.8, "class": "mark line"}, P.svg);
        withTip(line, ms[r.config].name + ": " + fmt(r.y[r.y.length - 1]) + " solved at the full budget, over " +
                r.problems + " problems");
        r.x.forEach(function (v, i) {
          var dot = el("circle", {cx: P.sx(v), cy: P.sy(r.y[i]), r: 2.5, fill: c, "class": "mark point"}, P.svg);
          withTip(dot, ms[r.config].name + "\nat " + Math.round(100 * v) + " % of the budget: " +
                  (100 * r.y[i]).toFixed(1) + " % solved within " + Math.round(100 * tol) + " %");
        });
      });
    });
    legend(fig.legend, ms, uniq(used));
  }

  function area(fig, x, budget) {
    var ms = methods(x), used = [];
    var rows = DATA[x].area.filter(function (r) { return r.budget === budget && finite(r.mean) && finite(r.sd); });
    if (!rows.length) { h("p", "note", fig.panels, "no problem has two replications at this budget"); return; }
    var mx = Math.max.apply(null, rows.map(function (r) { return r.mean; }).concat([1]));
    var sd = Math.max.apply(null, rows.map(function (r) { return r.sd; }).concat([0.1]));
    var P = panel(fig.panels, "Area under the progress curves, budget " + budget.toLocaleString("en-US"),
                  ["lin", 0, mx * 1.05], ["lin", 0, sd * 1.1], "mean area", "SD of the area", true);
    rows.forEach(function (r) {
      used.push(r.config);
      var dot = el("circle", {cx: P.sx(r.mean), cy: P.sy(r.sd), r: 4, fill: ms[r.config].colour,
                              "fill-opacity": 0.8, "class": "mark point"}, P.svg);
      withTip(dot, ms[r.config].name + "\n" + r.setting + "\nmean area " + fmt(r.mean) + ", SD " + fmt(r.sd) +
              "\nreplications " + r.n);
    });
    legend(fig.legend, ms, uniq(used));
  }

  function boxes(fig, x, budget) {
    var ms = methods(x), used = [];
    DATA[x].boxes.filter(function (p) { return p.budget === budget; }).forEach(function (p) {
      var vals = [];
      p.boxes.forEach(function (b) { vals = vals.concat([b.lo, b.hi, b.q1, b.q3], b.out); });
      var yr = qualityRange(vals), n = p.boxes.length;
      var P = panel(fig.panels, p.setting, ["cat", 0, n], ["symlog", yr[0], yr[1]], "", p.measure);
      p.boxes.forEach(function (b, i) {
        var c = ms[b.config].colour, cx = P.sx(i + 0.5), w = Math.min(22, (P.sx(1) - P.sx(0)) * 0.6);
        used.push(b.config);
        var tipText = ms[b.config].name + "\n" + p.setting + "\nmedian " + fmt(b.med) + " %, quartiles [" +
          fmt(b.q1) + "; " + fmt(b.q3) + "]\nwhiskers " + fmt(b.lo) + " to " + fmt(b.hi) + "\nreplications " + b.n;
        if (b.n > 1) {
          el("line", {x1: cx, x2: cx, y1: P.sy(b.lo), y2: P.sy(b.hi), stroke: c, "class": "mark"}, P.svg);
          var r = el("rect", {x: cx - w / 2, y: P.sy(b.q3), width: w, height: Math.max(1, P.sy(b.q1) - P.sy(b.q3)),
                              fill: c, "fill-opacity": 0.25, stroke: c, "class": "mark box"}, P.svg);
          withTip(r, tipText);
        }
        var m = el("line", {x1: cx - w / 2, x2: cx + w / 2, y1: P.sy(b.med), y2: P.sy(b.med), stroke: c,
                            "stroke-width": 2.5, "class": "mark median"}, P.svg);
        withTip(m, tipText);
        b.out.forEach(function (o) {
          if (finite(o)) { el("circle", {cx: cx, cy: P.sy(o), r: 2, fill: "none", stroke: c, "class": "mark"}, P.svg); }
        });
      });
    });
    legend(fig.legend, ms, uniq(used));
  }

  var DRAW = {progress: progress, solvability: solvability, area: area, boxes: boxes};
  document.querySelectorAll(".figure").forEach(function (node) {
    var key = node.getAttribute("data-fig"), x = node.getAttribute("data-x");
    var rows = DATA[x] && DATA[x][key];
    if (!rows || !rows.length) { h("p", "note warn", node, "no data for this figure"); return; }
    var controls = h("div", "controls", node);
    var fig = {legend: h("div", "", node), panels: h("div", "panels", node)};
    var budgets = uniq(rows.map(function (r) { return r.budget; })).sort(function (a, b) { return a - b; });
    var tols = key === "solvability" ? uniq(rows.map(function (r) { return r.tol; })) : null;
    var bSel = select(controls, "budget", budgets, function (b) { return b.toLocaleString("en-US") + " draws"; }, redraw);
    bSel.value = budgets[budgets.length - 1];
    var tSel = tols && select(controls, "solved within", tols, function (t) { return Math.round(100 * t) + " %"; }, redraw);
    function redraw() {
      fig.legend.textContent = ""; fig.panels.textContent = "";
      DRAW[key](fig, x, +bSel.value, tSel ? +tSel.value : null);
    }
    redraw();
  });
})();
