// delivery-sim's classroom page. Everything it shows is in the page's data (the
// `page-data` element), written by delivery-sim in both languages; this script only lays it
// out, follows clicks and keys, and moves the highlight through the diagram and the story.
// It loads nothing and sends nothing.
(function () {
  "use strict";
  var data = null;
  var app = document.getElementById("app");
  var state = {
    lang: "en",
    steps: {},
    active: 0,
    editor: "",
    explored: null,
    example: 0,
    depth: 1,
    busy: false,
    error: null,
  };

  function w(key) {
    var word = data.words[state.lang][key];
    if (word === undefined) {
      throw new Error("no word for " + key);
    }
    return word;
  }
  function t(bi) {
    return bi[state.lang];
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") {
        node.textContent = attrs[k];
      } else if (k === "onclick") {
        node.addEventListener("click", attrs[k]);
      } else {
        node.setAttribute(k, attrs[k]);
      }
    });
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) {
        node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
      }
    });
    return node;
  }

  // A verdict line, as the command that made the page prints it first: the status word in
  // its tone, then the guarantee with its scope and the reasons.
  function verdictLine(v) {
    return el("p", { class: "verdict-line " + v.status, "data-status": v.status }, [
      el("strong", { class: "status", text: t(v.word) }),
      " " + t(v.text),
    ]);
  }

  // The view is in the address: `#run/3`, or `#run/3/9` to compare run 3 with run 9.
  function route() {
    var m = /^#run\/(\d+)(?:\/(\d+))?$/.exec(location.hash);
    if (!data.runs) {
      return null;
    }
    if (m && +m[1] < data.runs.length) {
      var other = m[2] !== undefined && +m[2] < data.runs.length ? +m[2] : null;
      return { run: +m[1], compare: other };
    }
    return data.kind === "run" ? { run: 0, compare: null } : null;
  }
  function go(run, compare) {
    location.hash = "#run/" + run + (compare === null || compare === undefined ? "" : "/" + compare);
  }

  function render() {
    document.documentElement.lang = state.lang;
    document.title = t(data.title);
    app.textContent = "";
    app.appendChild(header());
    var main = el("main");
    var view = route();
    if (data.kind === "playground") {
      main.appendChild(playgroundScreen(view));
    } else if (view) {
      main.appendChild(runScreen(view));
    } else if (data.matrix) {
      main.appendChild(matrixScreen(data.matrix));
    } else if (data.listing) {
      main.appendChild(listingScreen(data.listing));
    }
    main.appendChild(el("footer", {}, [w("generated") + ": ", el("code", { text: data.command })]));
    app.appendChild(main);
    if (view) {
      highlight(0);
      if (view.compare !== null) {
        highlight(1);
      }
    }
  }

  function header() {
    var langs = el("span", { class: "langs", role: "group", "aria-label": w("language") });
    ["en", "es"].forEach(function (code) {
      langs.appendChild(
        el("button", {
          "data-lang": code,
          "aria-pressed": String(state.lang === code),
          text: code.toUpperCase(),
          onclick: function () {
            state.lang = code;
            render();
          },
        })
      );
    });
    return el("header", { class: "top" }, [el("h1", { text: t(data.title) }), langs]);
  }

  function matrixScreen(m) {
    var wrap = el("div", { class: "matrix" });
    wrap.appendChild(verdictLine(data.verdict));
    wrap.appendChild(el("p", { text: t(m.intro) }));
    wrap.appendChild(el("p", { class: "hint", text: w("matrix_hint") }));
    var head = el("tr", {}, [el("th", { class: "point", text: t(m.crash_point) })]);
    m.protocols.forEach(function (p) {
      head.appendChild(
        el("th", { class: "protocol", title: t(p.description) }, [p.name, el("span", { class: "steps", text: p.steps })])
      );
    });
    var body = el("tbody");
    m.rows.forEach(function (row) {
      var tr = el("tr", {}, [el("td", { class: "point", text: row.at })]);
      row.cells.forEach(function (cell, i) {
        if (!cell) {
          tr.appendChild(el("td", { class: "none", title: w("no_such_step"), text: "·" }));
          return;
        }
        var title = m.protocols[i].name + " · " + row.at + " · " + cell.runs + " " + w("runs");
        if (cell.run === null) {
          title += " · " + cell.replay;
        }
        tr.appendChild(
          el("td", { class: "cell" }, [
            el("button", {
              class: "tone-" + cell.outcome,
              "data-outcome": cell.outcome,
              "data-protocol": m.protocols[i].name,
              "data-at": row.at,
              title: title,
              text: t(cell.label),
              onclick: function () {
                if (cell.run !== null) {
                  go(cell.run);
                }
              },
            }),
          ])
        );
      });
      body.appendChild(tr);
    });
    var foot = el("tfoot");
    t(m.depth_labels).forEach(function (labels, d) {
      var runs = el("tr", {}, [el("th", { text: labels[0] })]);
      var guarantees = el("tr", {}, [el("th", { text: labels[1] })]);
      var verdicts = el("tr", { class: "verdicts" }, [el("th", { text: labels[2] })]);
      m.protocols.forEach(function (p) {
        runs.appendChild(el("td", { text: String(p.runs[d]) }));
        guarantees.appendChild(el("td", { text: p.guarantees[d] }));
        verdicts.appendChild(
          el("td", { class: "status " + p.statuses[d], "data-status": p.statuses[d], text: t(p.status_words)[d] })
        );
      });
      foot.appendChild(runs);
      foot.appendChild(guarantees);
      foot.appendChild(verdicts);
    });
    wrap.appendChild(el("table", {}, [el("thead", {}, [head]), body, foot]));
    wrap.appendChild(el("p", { class: "hint", text: t(m.legend) }));
    return wrap;
  }

  function listingScreen(l) {
    var wrap = el("div", { class: "listing" });
    wrap.appendChild(verdictLine(data.verdict));
    t(l.summary).forEach(function (line) {
      wrap.appendChild(el("p", { text: line }));
    });
    wrap.appendChild(el("p", { class: "hint", text: w("explore_hint") }));
    var body = el("tbody");
    // The playground asks its server for a run's story when it is opened.
    var onDemand = data.kind === "playground";
    l.runs.forEach(function (r) {
      var attrs = { "data-run": String(r.number) };
      if (r.view !== null || onDemand) {
        attrs.class = "shown";
        attrs.onclick = function () {
          if (r.view !== null) {
            go(r.view);
          } else {
            story(r);
          }
        };
      }
      body.appendChild(
        el("tr", attrs, [
          el("td", { text: String(r.number) }),
          el("td", { class: "point", text: t(r.schedule) }),
          el("td", { class: "status " + r.status, "data-status": r.status, text: t(r.status_word) }),
          el("td", { class: "tone-" + r.tone, text: t(r.outcome) }),
          el("td", { text: r.once + " / " + r.lost + " / " + r.duplicated }),
          el("td", { text: r.same_as === null ? "" : "≡ " + r.same_as }),
          el("td", {}, [r.view === null && !onDemand ? el("code", { text: r.replay }) : null]),
        ])
      );
    });
    var head = el("tr", {}, [
      el("th", { text: w("run") }),
      el("th", { text: w("crashes") }),
      el("th", { text: w("verdict") }),
      el("th", { text: w("guarantee") }),
      el("th", { text: "once / lost / dup" }),
      el("th", { text: w("same_as") }),
      el("th", { text: w("replay") }),
    ]);
    wrap.appendChild(el("table", {}, [el("thead", {}, [head]), body]));
    var hidden = l.runs.filter(function (r) {
      return r.view === null;
    }).length;
    if (onDemand) {
      if (l.total > l.runs.length) {
        wrap.appendChild(el("p", { class: "hint", text: l.total - l.runs.length + " " + w("not_listed") }));
      }
    } else if (hidden > 0 || l.total > l.runs.length) {
      wrap.appendChild(
        el("p", {
          class: "hint",
          text: l.total - l.runs.length + hidden + " " + w("not_shown") + " " + data.runs.length + w("not_shown_end"),
        })
      );
    }
    return wrap;
  }

  // `serve`'s editor: a scenario, its examples, and what the server answered about it.
  function playgroundScreen(view) {
    var wrap = el("div", { class: "playground" });
    wrap.appendChild(el("p", { class: "hint", text: w("playground_hint") }));
    var examples = el("select", { id: "example" });
    data.examples.forEach(function (e, i) {
      var option = el("option", { value: String(i), text: e[0] });
      option.selected = state.example === i;
      examples.appendChild(option);
    });
    var area = el("textarea", { id: "scenario", spellcheck: "false", rows: "16" });
    area.value = state.editor;
    area.addEventListener("input", function () {
      state.editor = area.value;
    });
    examples.addEventListener("change", function () {
      state.example = +examples.value;
      state.editor = data.examples[state.example][1];
      area.value = state.editor;
    });
    var depth = el("select", { id: "depth" }, [el("option", { text: "1" }), el("option", { text: "2" })]);
    depth.value = String(state.depth);
    depth.addEventListener("change", function () {
      state.depth = +depth.value;
    });
    wrap.appendChild(el("p", {}, [el("label", { for: "example", text: w("example") + " " }), examples]));
    wrap.appendChild(area);
    wrap.appendChild(
      el("p", { class: "actions" }, [
        el("button", { id: "run", text: w("run_it"), onclick: function () {
          send("/api/run");
        } }),
        " ",
        el("button", { id: "explore", text: w("explore_it"), onclick: function () {
          send("/api/explore?depth=" + state.depth);
        } }),
        " ",
        el("label", { for: "depth", text: w("depth") + " " }),
        depth,
        " ",
        el("span", { id: "status", class: "hint", text: state.busy ? w("working") : "" }),
      ])
    );
    if (state.error !== null) {
      wrap.appendChild(el("div", { id: "error", class: "error" }, [el("b", { text: w("error") + ": " }), state.error]));
    } else if (view) {
      wrap.appendChild(runScreen(view));
    } else if (data.listing) {
      wrap.appendChild(listingScreen(data.listing));
    }
    return wrap;
  }

  // Sends the editor's scenario to the server; its answer is a run page's or an exploration
  // page's data, shown as the static pages do.
  function send(url) {
    var text = state.editor;
    ask(url, text, function (body) {
      data.runs = body.runs;
      data.listing = body.listing || null;
      data.verdict = body.verdict;
      state.explored = body.listing ? text : null;
      state.steps = {};
      return body.kind === "run" ? "#run/0" : "";
    });
  }

  // Asks the server for the story of run `r` of the exploration shown: the scenario that
  // was explored, with `r`'s crashes (a page of the exploration tells no run up front).
  function story(r) {
    var query = r.crashes.map(function (c) {
      return "crash=" + encodeURIComponent(c);
    });
    ask("/api/story" + (query.length ? "?" + query.join("&") : ""), state.explored, function (body) {
      data.runs.push(body.runs[0]);
      r.view = data.runs.length - 1;
      return "#run/" + r.view;
    });
  }

  // POSTs `text` as JSON to `url`; `shown(body)` takes a good answer in and says where to go.
  function ask(url, text, shown) {
    state.busy = true;
    state.error = null;
    render();
    fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: text })
      .then(function (response) {
        return response.json().then(function (body) {
          return { ok: response.ok, body: body };
        });
      })
      .then(function (answer) {
        state.busy = false;
        var hash = location.hash;
        if (!answer.ok) {
          state.error = answer.body.error;
        } else {
          hash = shown(answer.body);
        }
        if (location.hash !== hash) {
          location.hash = hash; // renders on hashchange
        } else {
          render();
        }
      })
      .catch(function (e) {
        state.busy = false;
        state.error = String(e);
        render();
      });
  }

  function runScreen(view) {
    var wrap = el("div");
    if (data.kind !== "run") {
      wrap.appendChild(
        el("button", {
          class: "back",
          text: w("back"),
          onclick: function () {
            location.hash = "";
          },
        })
      );
    }
    if (data.matrix) {
      wrap.appendChild(compareChooser(view));
    }
    var panes = el("div", { class: "panes" + (view.compare !== null ? " compare" : "") });
    panes.appendChild(pane(view.run, 0));
    if (view.compare !== null) {
      panes.appendChild(pane(view.compare, 1));
    }
    wrap.appendChild(panes);
    return wrap;
  }

  // The matrix cell a run belongs to: its row and column.
  function cellOf(run) {
    var rows = data.matrix.rows;
    for (var r = 0; r < rows.length; r++) {
      for (var c = 0; c < rows[r].cells.length; c++) {
        if (rows[r].cells[c] && rows[r].cells[c].run === run) {
          return { row: rows[r], column: c };
        }
      }
    }
    return null;
  }

  function compareChooser(view) {
    var here = cellOf(view.run);
    var select = el("select", { id: "compare" });
    select.appendChild(el("option", { value: "", text: w("compare_none") }));
    data.matrix.protocols.forEach(function (p, i) {
      if (here && i !== here.column) {
        var option = el("option", { value: String(i), text: p.name });
        var other = here.row.cells[i];
        if (view.compare !== null && other && other.run !== null && other.run === view.compare) {
          option.selected = true;
        }
        select.appendChild(option);
      }
    });
    var note = el("span", { class: "hint" });
    select.addEventListener("change", function () {
      if (select.value === "") {
        go(view.run);
        return;
      }
      var other = here.row.cells[+select.value];
      if (other && other.run !== null) {
        go(view.run, other.run);
      } else {
        note.textContent = data.matrix.protocols[+select.value].name + " " + w("compare_missing");
      }
    });
    return el("p", {}, [el("label", { for: "compare", text: w("compare") + " " }), select, " ", note]);
  }

  function pane(index, slot) {
    var run = data.runs[index];
    var node = el("div", { class: "pane", "data-slot": String(slot), "data-run": String(index) });
    node.addEventListener("mousedown", function () {
      state.active = slot;
    });
    var title = run.protocol + (run.crashes.length ? " · " + run.crashes.join(" + ") : " · " + w("no_crash"));
    node.appendChild(verdictLine(run.judgement));
    node.appendChild(el("h2", { text: title }));
    node.appendChild(el("p", { class: "hint name", text: run.name }));
    node.appendChild(el("h3", { text: w("section_verdict") }));
    node.appendChild(el("ul", { class: "plain verdict" }, t(run.verdict).map(function (line) {
      return el("li", { text: line });
    })));
    node.appendChild(el("h3", { text: w("section_steps") }));
    node.appendChild(stepper(slot));
    var steps = el("ol", { class: "steps" });
    steps.appendChild(el("li", { class: "initial", "data-step": "-1" }, [
      el("span", { class: "text", text: w("before_first") }),
      stateLine([w("state_database"), t(run.initial)]),
    ]));
    run.steps.forEach(function (s, i) {
      var li = el("li", { "data-step": String(i), class: s.alarm ? "alarm" : "" }, [
        el("span", { class: "tick", text: "t=" + s.tick }),
        el("span", { class: "text", text: t(s.text) }),
      ]);
      t(s.states).forEach(function (pair) {
        li.appendChild(stateLine(pair));
      });
      li.addEventListener("click", function () {
        state.active = slot;
        setStep(slot, i);
      });
      steps.appendChild(li);
    });
    if (run.untold) {
      steps.appendChild(el("li", { class: "initial", text: t(run.untold) }));
    }
    var diagram = el("div", { class: "diagram" });
    diagram.innerHTML = t(run.svg); // delivery-sim's own SVG: every text in it is escaped
    // A click on a row of the diagram goes to the step it stands for.
    diagram.addEventListener("click", function (e) {
      var row = e.target.closest ? e.target.closest("[data-first]") : null;
      if (row) {
        state.active = slot;
        setStep(slot, stepOfEntry(run, +row.getAttribute("data-first")));
      }
    });
    node.appendChild(el("div", { class: "story" }, [diagram, steps]));
    node.appendChild(eventsSection(run));
    node.appendChild(failureSection(run));
    node.appendChild(
      el("section", {}, [
        el("h3", { text: w("replay") }),
        el("div", { class: "replay" }, [el("code", { class: "command", text: run.replay }), copyButton(run.replay)]),
        el("p", { class: "hint" }, [w("trace_hash") + " ", el("code", { text: run.trace_hash })]),
      ])
    );
    return node;
  }

  // The step that tells trace entry `entry` (steps are told in trace order, one per entry).
  function stepOfEntry(run, entry) {
    for (var i = 0; i < run.steps.length; i++) {
      if (run.steps[i].entry >= entry) {
        return i;
      }
    }
    return run.steps.length - 1;
  }

  function stateLine(pair) {
    return el("span", { class: "state" }, [el("b", { text: pair[0] }), pair[1]]);
  }

  function stepper(slot) {
    var where = el("span", { class: "where" });
    var prev = el("button", { class: "prev", text: w("previous"), onclick: function () {
      state.active = slot;
      setStep(slot, current(slot) - 1);
    } });
    var next = el("button", { class: "next", text: w("next"), onclick: function () {
      state.active = slot;
      setStep(slot, current(slot) + 1);
    } });
    return el("div", { class: "stepper" }, [prev, next, where, el("span", { class: "hint", text: w("keys") })]);
  }

  function paneNode(slot) {
    return app.querySelector('.pane[data-slot="' + slot + '"]');
  }
  function current(slot) {
    var node = paneNode(slot);
    var run = node ? +node.getAttribute("data-run") : 0;
    var s = state.steps[slot];
    return s && s.run === run ? s.step : -1;
  }
  function setStep(slot, step) {
    var node = paneNode(slot);
    if (!node) {
      return;
    }
    var run = +node.getAttribute("data-run");
    var last = data.runs[run].steps.length - 1;
    state.steps[slot] = { run: run, step: Math.max(-1, Math.min(last, step)) };
    highlight(slot, true);
  }

  // Marks the current step in the story and its row in the diagram.
  function highlight(slot, scroll) {
    var node = paneNode(slot);
    if (!node) {
      return;
    }
    var run = data.runs[+node.getAttribute("data-run")];
    var step = current(slot);
    node.querySelectorAll("ol.steps li.current").forEach(function (li) {
      li.classList.remove("current");
    });
    var li = node.querySelector('ol.steps li[data-step="' + step + '"]');
    if (li) {
      li.classList.add("current");
      if (scroll) {
        li.scrollIntoView({ block: "nearest" });
      }
    }
    var where = node.querySelector(".stepper .where");
    where.textContent = step < 0 ? w("before_first") : w("step") + " " + (step + 1) + " " + w("of") + " " + run.steps.length;
    node.querySelector(".stepper .prev").disabled = step < 0;
    node.querySelector(".stepper .next").disabled = step >= run.steps.length - 1;
    markDiagram(node, step < 0 ? null : run.steps[step].entry, scroll);
  }

  function markDiagram(node, entry, scroll) {
    var svg = node.querySelector(".diagram svg");
    if (!svg) {
      return;
    }
    svg.querySelectorAll(".hl").forEach(function (g) {
      g.classList.remove("hl");
    });
    var band = svg.querySelector(".hl-band");
    if (entry === null) {
      if (band) {
        band.remove();
      }
      return;
    }
    // The rows that stand for this entry, else the last row before it (an entry the
    // diagram draws nothing for, or one folded into a note).
    var covering = [];
    var before = null;
    svg.querySelectorAll("[data-first]").forEach(function (g) {
      var first = +g.getAttribute("data-first");
      if (first <= entry && entry <= +g.getAttribute("data-last")) {
        covering.push(g);
      }
      if (first <= entry) {
        before = g;
      }
    });
    var rows = covering.length ? covering : before ? [before] : [];
    if (rows.length === 0) {
      if (band) {
        band.remove();
      }
      return;
    }
    var top = Infinity;
    var bottom = -Infinity;
    rows.forEach(function (g) {
      g.classList.add("hl");
      var box = g.getBBox();
      top = Math.min(top, box.y);
      bottom = Math.max(bottom, box.y + box.height);
    });
    var row = rows[0];
    if (!band) {
      band = document.createElementNS("http://www.w3.org/2000/svg", "rect");
      band.setAttribute("class", "hl-band");
      svg.appendChild(band);
    }
    band.setAttribute("x", "0");
    band.setAttribute("width", svg.getAttribute("width"));
    band.setAttribute("y", String(top - 3));
    band.setAttribute("height", String(bottom - top + 6));
    if (scroll) {
      row.scrollIntoView({ block: "nearest" });
    }
  }

  function eventsSection(run) {
    var head = el("tr", {}, [w("event"), w("outcome"), w("effects"), w("deliveries"), w("acked")].map(function (k) {
      return el("th", { text: k });
    }));
    var body = el("tbody", {}, run.events.map(function (e) {
      return el("tr", {}, [
        el("td", { class: "point", text: e.event }),
        el("td", { class: "tone-" + e.tone, "data-outcome": e.tone, text: t(e.outcome) }),
        el("td", { text: String(e.effects) }),
        el("td", { text: String(e.deliveries) }),
        el("td", { text: e.acked ? w("yes") : w("no") }),
      ]);
    }));
    var anomalies = t(run.anomalies);
    return el("section", { class: "events" }, [
      el("h3", { text: w("events") }),
      el("table", {}, [el("thead", {}, [head]), body]),
      anomalies.length ? el("h3", { text: w("section_anomalies") }) : null,
      anomalies.length
        ? el("ul", { class: "plain anomalies" }, anomalies.map(function (a) {
            return el("li", { text: a });
          }))
        : null,
    ]);
  }

  function failureSection(run) {
    var labels = t(run.failure_labels);
    var points = t(run.failure_points);
    if (points.length === 0) {
      return el("section", { class: "failure-points" });
    }
    var head = el("tr", {}, labels.map(function (l) {
      return el("th", { text: l });
    }));
    var body = el("tbody", {}, points.map(function (p, i) {
      return el("tr", {}, [
        el("td", { class: "point", text: p[0] }),
        el("td", { text: p[1] }),
        el("td", { text: p[2] }),
        el("td", { class: run.failure_once[i] ? "tone-once" : "tone-lost", text: p[3] }),
      ]);
    }));
    return el("section", { class: "failure-points" }, [
      el("h3", { text: w("section_failure_points") }),
      el("table", {}, [el("thead", {}, [head]), body]),
    ]);
  }

  function copyButton(text) {
    var button = el("button", { class: "copy", text: w("copy") });
    button.addEventListener("click", function () {
      var done = function () {
        button.textContent = w("copied");
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, function () {
          fallbackCopy(text);
          done();
        });
      } else {
        fallbackCopy(text);
        done();
      }
    });
    return button;
  }
  function fallbackCopy(text) {
    var area = el("textarea", { readonly: "" });
    area.value = text;
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try {
      document.execCommand("copy");
    } catch (e) {
      // Nothing more to try: the command stays on the page to copy by hand.
    }
    area.remove();
  }

  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (!data || tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || !route()) {
      return;
    }
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      var slot = paneNode(state.active) ? state.active : 0;
      setStep(slot, current(slot) + (e.key === "ArrowRight" ? 1 : -1));
      e.preventDefault();
    }
  });
  window.addEventListener("hashchange", function () {
    if (data) {
      render();
    }
  });

  // The data is gzip in base64 (the page stays small); the browser inflates it itself.
  function unpack() {
    var binary = atob(document.getElementById("page-data").textContent.replace(/\s+/g, ""));
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) {
      bytes[i] = binary.charCodeAt(i);
    }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }
  unpack().then(
    function (json) {
      data = JSON.parse(json);
      state.lang = data.lang === "es" ? "es" : "en";
      if (data.examples && data.examples.length) {
        var first = data.examples.findIndex(function (e) {
          return e[0] === "inbox-crash-between-commit-and-ack";
        });
        state.example = Math.max(0, first);
        state.editor = data.examples[state.example][1];
      }
      render();
    },
    function (e) {
      app.textContent =
        "This browser cannot unpack the page (it needs DecompressionStream: Chrome 80, Firefox 113, " +
        "Safari 16.4 or later). / Este navegador no puede desempaquetar la página (necesita " +
        "DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 o posterior).";
      throw e;
    }
  );
})();
