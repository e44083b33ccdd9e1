"use strict";
// The labelling page of goldcase (goldcase label serve).
//
// Every text that comes from a case file, a label file, the corpus or the server reaches the
// page as textContent, a text node or a form value: never as markup. Quotes are cut from a
// document by the server from the offsets of a selection, so they are verbatim by
// construction. What the labeller types is kept in localStorage until it is saved, so a reload
// loses nothing; a save names the version of the file it started from, and the server refuses
// it when the file changed meanwhile (another tab, an editor).

const $ = (id) => document.getElementById(id);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

async function api(name, body) {
  let response;
  try {
    response = await fetch("/api/" + name, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    });
  } catch (error) {
    throw Object.assign(new Error("The page cannot reach goldcase: is goldcase label serve still running?"), { status: 0 });
  }
  let data;
  try {
    data = await response.json();
  } catch (error) {
    data = { error: "the server's answer was not JSON" };
  }
  if (!response.ok) {
    throw Object.assign(new Error(data.error || response.statusText), { status: response.status });
  }
  return data;
}

// -- state --------------------------------------------------------------------------------

const S = {
  state: null, // what /api/state said: the items, slices, tags, documents
  index: 0, // the current item's place in S.state.items
  view: null, // the current item as the server read it
  form: null, // what the labeller has set on it
  base: null, // the digest of the file the form started from
  dirty: false,
  busy: false,
  loading: false, // an item is being fetched
  offers: null,
  doc: null, // the open document
  cursor: null, // keyboard selection in the document: [first piece, last piece]
  found: null, // the passage a search result pointed at
  skipped: new Set(),
  checks: null,
};

const store = {
  key(kind, item) {
    const s = S.state;
    return ["goldcase", s.repository_id, s.mode, s.labeller || "", kind, item || ""].join(":");
  },
  get(kind, item) {
    try {
      return JSON.parse(localStorage.getItem(this.key(kind, item)));
    } catch (error) {
      return null;
    }
  },
  set(kind, item, value) {
    try {
      localStorage.setItem(this.key(kind, item), JSON.stringify(value));
    } catch (error) {
      /* storage full or switched off: the page still works, a reload may lose typing */
    }
  },
  drop(kind, item) {
    try {
      localStorage.removeItem(this.key(kind, item));
    } catch (error) {
      /* as above */
    }
  },
};

// What a tab typed is kept under the tab's own name (sessionStorage survives a reload of the
// tab, not another tab), so a save in one tab never throws away another tab's typing.
const TAB = (() => {
  try {
    let tab = sessionStorage.getItem("goldcase-tab");
    if (!tab) {
      tab = Math.random().toString(36).slice(2, 10);
      sessionStorage.setItem("goldcase-tab", tab);
    }
    return tab;
  } catch (error) {
    return "tab";
  }
})();
const typed = (key) => `${key}@${TAB}`;

const drafts = () => S.state && S.state.mode === "drafts";
const items = () => (S.state ? S.state.items : []);
const current = () => items()[S.index];
const isDone = (item) => item.state === (drafts() ? "labelled" : "done");

// -- the form model -------------------------------------------------------------------------

function formFromView(view) {
  const f = view.fields;
  const base = {
    answerable: f.answerable,
    false_premise: Boolean(f.false_premise),
    expected_answer: f.expected_answer || "",
    support: (f.support || []).map((q) => ({ ...q, fresh: false })),
    premise: f.premise ? { ...f.premise, fresh: false } : null,
    contains: f.expect.contains.map((row) => row.slice()),
    not_contains: f.expect.not_contains.slice(),
    lead: f.expect.lead || "",
    pass: f.probes ? f.probes.pass.slice() : [],
    fail: f.probes ? f.probes.fail.slice() : [],
    slice: f.slice || "",
    tags: (f.tags || []).slice(),
    labelled_by: f.labelled_by || "",
    notes: f.notes || "",
  };
  if (drafts() && !base.labelled_by) base.labelled_by = store.get("name") || "";
  return base;
}

function kindOf(form) {
  if (form.answerable === true) return "answer";
  if (form.answerable === false) return form.false_premise ? "premise" : "absent";
  return null;
}

function quoteRef(q) {
  return q.fresh ? { doc: q.doc, start: q.start, end: q.end, digest: q.digest } : { doc: q.doc, quote: q.quote };
}

function fieldsOf(form) {
  const expect = { contains: form.contains, not_contains: form.not_contains, lead: form.lead || null };
  if (!drafts()) {
    return {
      answerable: form.answerable,
      expected_answer: form.expected_answer || null,
      expect,
      notes: form.notes || null,
    };
  }
  return {
    answerable: form.answerable,
    false_premise: form.false_premise,
    expected_answer: form.expected_answer || null,
    support: form.support.map(quoteRef),
    premise: form.premise ? quoteRef(form.premise) : null,
    expect,
    probes: { pass: form.pass, fail: form.fail },
    slice: form.slice || null,
    tags: form.tags,
    labelled_by: form.labelled_by || null,
    notes: form.notes || null,
  };
}

function changed() {
  S.dirty = true;
  store.set("form", typed(current().key), { base: S.base, form: S.form });
  $("dirty").textContent = "Not saved yet";
  renderList();
}

function setTag(tag, on) {
  const has = S.form.tags.includes(tag);
  if (on && !has) S.form.tags.push(tag);
  if (!on && has) S.form.tags = S.form.tags.filter((t) => t !== tag);
}

function syncTags() {
  if (!drafts()) return;
  const kind = kindOf(S.form);
  setTag("unanswerable", kind === "premise" || kind === "absent");
  setTag("false_premise", kind === "premise");
  setTag("multi_doc", kind === "answer" && new Set(S.form.support.map((q) => q.doc)).size > 1);
}

function setKind(kind) {
  if (!S.form || S.view.problems.length) return;
  if (!drafts() && kind === "premise") return;
  S.form.answerable = kind === "answer" ? true : kind ? false : null;
  S.form.false_premise = kind === "premise";
  syncTags();
  changed();
  renderForm();
  refreshOffers();
}

// -- loading --------------------------------------------------------------------------------

async function start() {
  bindStatic();
  try {
    S.state = await api("state");
  } catch (error) {
    notice(error.message, "error");
    return;
  }
  renderTop();
  if (store.get("to") === "dev") $("promote-to").value = "dev";
  const at = store.get("at");
  const found = items().findIndex((item) => item.key === at);
  const open = found >= 0 ? found : Math.max(0, items().findIndex((item) => !isDone(item)));
  renderAgreement(S.state.agreement);
  await openItem(open);
  setInterval(tick, 1000);
}

async function reloadState() {
  S.state = await api("state");
  renderTop();
  renderAgreement(S.state.agreement);
}

// While an item loads the work column says so (aria-busy), for a screen reader and for a
// script driving the page, which waits for the item rather than for a time.
function loading(on) {
  S.loading = on;
  if (on) $("work").setAttribute("aria-busy", "true");
  else $("work").removeAttribute("aria-busy");
}

async function openItem(index, { keepNotice = false } = {}) {
  if (!items().length) {
    S.view = null;
    $("form").hidden = true;
    $("empty").hidden = false;
    $("empty").textContent = drafts()
      ? "No drafts in cases/inbox/. goldcase triage draws them from a week of production traces."
      : "No label files for this labeller.";
    renderList();
    renderTop();
    return;
  }
  index = Math.max(0, Math.min(index, items().length - 1));
  const key = items()[index].key;
  let view;
  loading(true); // keys pressed meanwhile must not land on the item being left
  try {
    view = await api("item", { key });
  } catch (error) {
    notice(error.message, "error");
    return;
  } finally {
    loading(false);
  }
  S.index = index;
  S.view = view;
  S.base = view.hash;
  S.form = formFromView(view);
  S.dirty = false;
  S.checks = null;
  if (!keepNotice) notice("");
  const kept = store.get("form", typed(key));
  if (kept && kept.form && !view.problems.length) {
    S.form = kept.form;
    S.base = kept.base;
    S.dirty = true;
    notice(
      kept.base === view.hash
        ? "Restored what you typed here before; it is not saved yet."
        : "Restored what you typed here before. The file has changed since (another tab or an editor saved it): saving will ask you to load the saved version first.",
      kept.base === view.hash ? "" : "error",
    );
  }
  store.set("at", "", key);
  $("empty").hidden = true;
  $("form").hidden = false;
  renderItem();
  renderChecks(null);
  renderReveal(view.reveal);
  refreshOffers();
  const question = view.question;
  if (question && !view.problems.length) {
    $("search").value = question;
    runSearch();
  }
  focusFirst();
}

function focusFirst() {
  const checked = document.querySelector('input[name="kind"]:checked');
  const first = checked || document.querySelector('input[name="kind"]');
  if (first && !first.disabled) first.focus();
}

async function move(delta) {
  if (!items().length) return;
  const next = S.index + delta;
  if (next < 0 || next >= items().length) {
    notice(delta > 0 ? "This is the last item." : "This is the first item.");
    return;
  }
  await openItem(next);
}

async function skip() {
  if (!items().length) return;
  S.skipped.add(current().key);
  const n = items().length;
  for (let step = 1; step <= n; step += 1) {
    const index = (S.index + step) % n;
    const item = items()[index];
    if (!isDone(item) && !S.skipped.has(item.key)) {
      await openItem(index);
      return;
    }
  }
  notice("Every other item is labelled or skipped.");
}

// -- rendering: the top, the list -----------------------------------------------------------

function renderTop() {
  const s = S.state;
  $("where").textContent = drafts()
    ? `Drafts in ${s.folder}/ of ${s.repository}`
    : `Second labels of ${s.labeller} in ${s.folder}/ of ${s.repository}`;
  $("list-title").textContent = drafts() ? "Drafts" : "Labels";
  $("promote-panel").hidden = !drafts();
  for (const node of document.querySelectorAll('[data-mode="drafts"]')) node.hidden = !drafts();
  $("absent-key").textContent = drafts() ? "3" : "2";
  const slices = $("slices");
  slices.replaceChildren(...s.slices.map((name) => el("option", { value: name })));
  renderList();
  renderProgress();
}

function renderList() {
  const list = $("items");
  const marks = { labelled: "●", done: "●", started: "◐", blank: "○", unreadable: "!" };
  const words = { labelled: "labelled", done: "done", started: "started", blank: "to do", unreadable: "cannot be read" };
  list.replaceChildren(
    ...items().map((item, index) => {
      const unsaved = store.get("form", typed(item.key)) ? " · not saved" : "";
      const button = el(
        "button",
        {
          type: "button",
          class: "item " + item.state + (index === S.index ? " current" : ""),
          "aria-current": index === S.index ? "true" : null,
          onclick: () => openItem(index),
        },
        el("span", { class: "mark", "aria-hidden": "true", text: marks[item.state] || "○" }),
        el("span", { class: "item-text" }, el("span", { class: "item-q", text: item.question || item.key }), el("span", { class: "item-meta", text: `${words[item.state] || item.state}${unsaved}` })),
      );
      return el("li", {}, button);
    }),
  );
  const promotable = items().filter((item) => item.state === "labelled").length;
  $("promote-all").textContent = promotable
    ? `Promote ${promotable} labelled draft${promotable === 1 ? "" : "s"}`
    : "No labelled draft to promote";
  $("promote-all").disabled = promotable === 0;
  $("position").textContent = items().length ? `${S.index + 1} of ${items().length}` : "";
}

function duration(seconds) {
  seconds = Math.round(seconds);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function clock(seconds) {
  const m = Math.floor(seconds / 60);
  const s = String(seconds % 60).padStart(2, "0");
  return `${m}:${s}`;
}

function renderProgress() {
  if (!S.state) return;
  const all = items();
  const done = all.filter(isDone).length;
  const left = all.length - done;
  const paces = Object.values(store.get("pace") || {});
  const own = paces.length >= 3; // the planned pace until a few items say otherwise
  const pace = own ? paces.reduce((a, b) => a + b, 0) / paces.length : S.state.seconds_per_item;
  const times = store.get("time") || {};
  const here = S.view ? times[S.view.key] || 0 : 0;
  const parts = [`${done} of ${all.length} ${drafts() ? "labelled" : "done"}`];
  if (S.view) parts.push(`${clock(here)} on this item`);
  if (left > 0) {
    parts.push(
      `about ${duration(left * pace)} left (${left} × ${Math.round(pace)} s, ${own ? "your pace so far" : "the planned pace"})`,
    );
  }
  $("progress").textContent = parts.join(" · ");
  $("item-time").textContent = S.view ? `${clock(here)} spent on it` : "";
}

function tick() {
  if (!S.view || document.visibilityState !== "visible") return;
  const times = store.get("time") || {};
  times[S.view.key] = (times[S.view.key] || 0) + 1;
  store.set("time", "", times);
  renderProgress();
}

function recordPace(key) {
  const times = store.get("time") || {};
  const paces = store.get("pace") || {};
  if (times[key]) paces[key] = times[key];
  store.set("pace", "", paces);
}

// -- rendering: the item --------------------------------------------------------------------

function renderItem() {
  const view = S.view;
  $("item-id").textContent = view.key;
  $("item-state").textContent = { labelled: "labelled", done: "done", started: "started", blank: "to do", unreadable: "cannot be read" }[view.state] || view.state;
  $("item-state").className = "badge " + view.state;
  $("question").textContent = view.question || "(no question in the file)";
  $("blind").hidden = drafts() || Boolean(view.reveal);
  const trace = view.trace;
  const production = $("production");
  production.hidden = !drafts() || !trace;
  if (drafts() && trace) {
    $("production-answer").textContent = trace.answer === null ? "(no answer: it gave none)" : trace.answer;
    $("asked").textContent = view.asked_at ? `· asked ${when(view.asked_at)}` : "";
    const flags = { failed_check: "failed an automatic check", cap_hit: "hit a cap", thumbs_down: "got a thumbs-down" };
    const said = trace.flags.map((f) => flags[f] || f);
    if (trace.repeats) said.push(`asked ${trace.repeats} more time${trace.repeats === 1 ? "" : "s"} that week`);
    $("production-flags").textContent = said.length ? `The trace ${said.join(", ")}.` : "";
  }
  const problems = $("problems");
  problems.hidden = view.problems.length === 0;
  problems.textContent = view.problems.length
    ? `This file cannot be read as ${drafts() ? "a draft" : "a label"}: ${view.problems.map((p) => `line ${p.line}: ${p.code} ${p.message}`).join("; ")}. Fix it in an editor (goldcase check ${view.rel} says where), then reload.`
    : "";
  for (const node of $("form").querySelectorAll("input, textarea, select, button")) node.disabled = view.problems.length > 0;
  renderForm();
  renderList();
  renderProgress();
}

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const hasTime = iso.length > 10;
  const options = hasTime
    ? { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC", timeZoneName: "short" }
    : { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" };
  return date.toLocaleString("en-GB", options);
}

function renderForm() {
  const form = S.form;
  const kind = kindOf(form);
  for (const radio of document.querySelectorAll('input[name="kind"]')) radio.checked = radio.value === kind;
  const labels = !drafts();
  const answers = kind === "answer";
  $("step-quotes").hidden = !(answers || kind === "premise" || labels);
  $("quotes").hidden = kind === "premise";
  $("quotes-help").hidden = kind === "premise";
  $("premise-box").hidden = kind !== "premise";
  $("quotes-title").textContent = labels
    ? "Passages (to find the answer; label files keep the answer, not the passage)"
    : kind === "premise"
      ? "The passage that says otherwise"
      : "The passages that answer it";
  $("step-answer").hidden = !answers;
  $("step-checks").hidden = !(answers || (kind === "premise" && !labels));
  $("checks-title").textContent = kind === "premise" ? "What a correction must contain" : "What a right answer must contain";
  $("checks-help").textContent = kind === "premise"
    ? "A reply that corrects the premise passes; each line is a fact it must carry (any one wording)."
    : labels
      ? "Optional. Each line is one fact; any one of its wordings will do."
      : "Each line is one fact; any one of its wordings will do.";
  $("step-probes").hidden = labels || !(answers || kind === "premise");
  $("answer").value = form.expected_answer;
  $("slice").value = form.slice;
  $("labelled-by").value = form.labelled_by;
  $("notes").value = form.notes;
  $("lead").value = form.lead;
  $("dirty").textContent = S.dirty ? "Not saved yet" : "";
  renderQuotes();
  renderRows();
  renderChips($("not-contains"), form.not_contains, (value) => {
    form.not_contains = form.not_contains.filter((v) => v !== value);
    changed();
    renderForm();
  });
  renderProbes("pass");
  renderProbes("fail");
  renderTags();
  renderOffers();
  renderSteps();
}

function renderSteps() {
  let n = 2;
  for (const id of ["step-quotes", "step-answer", "step-checks", "step-probes", "step-about"]) {
    const section = $(id);
    const badge = section.querySelector(".num");
    if (section.hidden || !badge) continue;
    badge.textContent = String(n);
    n += 1;
  }
}

function contextOf(q, removable) {
  const c = q.context;
  const body = c
    ? el("p", { class: "in-context" }, el("span", { class: "around", text: c.before ? c.before + " " : "" }), c.lead, el("mark", { text: q.quote }), c.tail, el("span", { class: "around", text: c.after ? " " + c.after : "" }))
    : el("p", { class: "in-context" }, el("mark", { text: q.quote }));
  const head = el(
    "p",
    { class: "quote-head" },
    el("button", { type: "button", class: "link", text: q.doc, title: "Open the document", onclick: () => openDoc(q.doc, q.start === null ? null : { start: q.start, end: q.end }) }),
    c ? el("span", { class: "muted", text: ` line ${c.line}` }) : null,
    removable,
  );
  const warn = q.found === false
    ? el("p", { class: "warn", text: "Not found in the document as written: the checks say where it differs. Remove it and select the passage again." })
    : null;
  return [head, body, warn];
}

function renderQuotes() {
  const list = $("quotes");
  const quotes = S.form.support;
  list.replaceChildren(
    ...quotes.map((q, index) => {
      const remove = el("button", {
        type: "button",
        class: "remove",
        text: "Remove",
        "aria-label": `Remove the passage from ${q.doc}`,
        onclick: () => {
          S.form.support.splice(index, 1);
          syncTags();
          changed();
          renderForm();
          refreshOffers();
          if (S.doc) renderDoc();
        },
      });
      const copy = !drafts()
        ? el("button", { type: "button", class: "link", text: "Copy to notes", onclick: () => copyToNotes(q) })
        : null;
      return el("li", { class: "quote" }, ...contextOf(q, el("span", {}, copy, remove)));
    }),
  );
  if (!quotes.length) list.append(el("li", { class: "placeholder", text: "No passage yet." }));
  const premise = $("premise");
  const p = S.form.premise;
  premise.replaceChildren(
    ...(p
      ? [el("div", { class: "quote" }, ...contextOf(p, el("button", { type: "button", class: "remove", text: "Remove", onclick: () => { S.form.premise = null; changed(); renderForm(); refreshOffers(); if (S.doc) renderDoc(); } })))]
      : [el("p", { class: "placeholder", text: "No passage yet." })]),
  );
}

function copyToNotes(q) {
  const line = `${q.doc}: "${q.quote}"`;
  S.form.notes = S.form.notes ? `${S.form.notes} ${line}` : line;
  changed();
  renderForm();
}

function renderChips(list, values, remove) {
  list.replaceChildren(
    ...values.map((value) =>
      el("li", { class: "chip" }, el("span", { text: value }), el("button", { type: "button", class: "x", "aria-label": `Remove ${value}`, text: "×", onclick: () => remove(value) })),
    ),
  );
}

function renderRows() {
  const list = $("contains");
  list.replaceChildren(
    ...S.form.contains.map((row, index) => {
      const chips = el("ul", { class: "chips" });
      renderChips(chips, row, (value) => {
        row.splice(row.indexOf(value), 1);
        if (!row.length) S.form.contains.splice(index, 1);
        changed();
        renderForm();
      });
      const more = el("input", { type: "text", class: "more", "aria-label": "Another way to say it", placeholder: "another way to say it" });
      more.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          const value = more.value.trim();
          if (value && !row.includes(value)) {
            row.push(value);
            changed();
            renderForm();
            const again = $("contains").children[index];
            if (again) again.querySelector("input.more").focus();
          }
        }
      });
      const drop = el("button", { type: "button", class: "remove", text: "Remove", "aria-label": "Remove this fact", onclick: () => { S.form.contains.splice(index, 1); changed(); renderForm(); } });
      return el("li", { class: "row" }, chips, more, drop);
    }),
  );
}

function renderProbes(kind) {
  const list = $(kind);
  list.replaceChildren(
    ...S.form[kind].map((answer, index) =>
      el("li", { class: "probe" }, el("span", { text: answer }), el("button", { type: "button", class: "remove", text: "Remove", "aria-label": `Remove the ${kind === "pass" ? "right" : "wrong"} answer`, onclick: () => { S.form[kind].splice(index, 1); changed(); renderForm(); } })),
    ),
  );
  if (!S.form[kind].length) list.append(el("li", { class: "placeholder", text: kind === "fail" ? "None yet: add one, or use a suggestion below." : "None yet." }));
}

function renderTags() {
  const list = $("tags");
  const all = [...new Set([...S.state.tags, ...S.form.tags])];
  list.replaceChildren(
    ...all.map((tag) => {
      const box = el("input", { type: "checkbox", value: tag });
      box.checked = S.form.tags.includes(tag);
      box.addEventListener("change", () => {
        setTag(tag, box.checked);
        changed();
      });
      return el("li", {}, el("label", { class: "tag" }, box, " " + tag.replace(/_/g, " ")));
    }),
  );
}

// -- offers ---------------------------------------------------------------------------------

async function refreshOffers() {
  S.offers = null;
  const placed = (q) => q && q.start !== null && q.start !== undefined;
  const quotes = S.form.support.filter(placed).map((q) => ({ doc: q.doc, start: q.start, end: q.end }));
  const body = { quotes };
  if (kindOf(S.form) === "premise" && placed(S.form.premise)) {
    body.quotes = [];
    body.premise = { doc: S.form.premise.doc, start: S.form.premise.start, end: S.form.premise.end };
    body.question = S.view.question;
  }
  if (body.quotes.length || body.premise) {
    const key = S.view.key;
    try {
      const offers = await api("offers", body);
      if (S.view && S.view.key === key) S.offers = offers;
    } catch (error) {
      S.offers = null;
    }
  }
  renderOffers();
}

function offerButton(label, title, onclick) {
  return el("button", { type: "button", class: "offer", title, onclick }, label);
}

function renderOffers() {
  const offers = S.offers || { figures: [], names: [], not_contains: [] };
  const form = S.form;
  const kind = kindOf(form);
  const answerOffers = [...offers.figures.map((f) => f.text), ...offers.names];
  $("answer-offers").replaceChildren(
    ...(answerOffers.length ? [el("span", { class: "muted", text: "From the passages: " })] : []),
    ...answerOffers.map((text) => offerButton(text, "Put it in the short answer", () => {
      form.expected_answer = form.expected_answer ? `${form.expected_answer} ${text}` : text;
      changed();
      renderForm();
      $("answer").focus();
    })),
  );
  const rows = form.contains.flat().map((v) => v.toLowerCase());
  const fresh = offers.figures.filter((f) => !rows.includes(f.text.toLowerCase()));
  $("contains-offers").replaceChildren(
    ...(fresh.length ? [el("span", { class: "muted", text: kind === "premise" ? "What the passage says: " : "Require: " })] : []),
    ...fresh.map((f) => offerButton(`+ ${f.spellings.join(" / ")}`, "Add it as a fact a right answer must contain (any one wording)", () => {
      form.contains.push(f.spellings.slice());
      changed();
      renderForm();
    })),
  );
  const nots = offers.not_contains.filter((v) => !form.not_contains.map((x) => x.toLowerCase()).includes(v.toLowerCase()));
  $("not-offers").replaceChildren(
    ...(nots.length ? [el("span", { class: "muted", text: kind === "premise" ? "The premise and figures near the passage: " : "Figures near the passage: " })] : []),
    ...nots.map((text) => offerButton(`+ ${text}`, "A right answer must not contain it", () => {
      form.not_contains.push(text);
      changed();
      renderForm();
    })),
  );
  renderFailOffers();
}

function renderFailOffers() {
  const form = S.form;
  const suggestions = [];
  const trace = S.view && S.view.trace;
  if (trace && trace.answer && trace.flags.length) suggestions.push([`Production's answer: “${clip(trace.answer, 60)}”`, trace.answer]);
  const answer = form.expected_answer;
  for (const wrong of form.not_contains) {
    for (const right of form.contains.flat()) {
      const at = answer.toLowerCase().indexOf(right.toLowerCase());
      if (right && at >= 0) {
        const swapped = answer.slice(0, at) + wrong + answer.slice(at + right.length);
        suggestions.push([`“${clip(swapped, 60)}”`, swapped]);
        break;
      }
    }
  }
  const fresh = suggestions.filter(([, text]) => !form.fail.includes(text));
  $("fail-offers").replaceChildren(
    ...(fresh.length ? [el("span", { class: "muted", text: "Suggestions: " })] : []),
    ...fresh.map(([label, text]) => offerButton(`+ ${label}`, "Add it as a wrong answer", () => {
      form.fail.push(text);
      changed();
      renderForm();
    })),
  );
}

function clip(text, n) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= n ? flat : flat.slice(0, n - 1) + "…";
}

// -- saving ---------------------------------------------------------------------------------

async function save(thenNext) {
  if (!S.view || S.busy || S.view.problems.length) return;
  const key = S.view.key;
  const to = $("promote-to").value;
  const evidence = drafts() ? [] : S.form.support;
  S.busy = true;
  $("save").disabled = true;
  $("save-next").disabled = true;
  notice("Saving and checking…");
  let result;
  try {
    result = await api("save", { key, hash: S.base, fields: fieldsOf(S.form), to });
  } catch (error) {
    S.busy = false;
    $("save").disabled = false;
    $("save-next").disabled = false;
    if (error.status === 409) conflict(error.message);
    else notice(error.message, "error");
    return;
  }
  S.busy = false;
  $("save").disabled = false;
  $("save-next").disabled = false;
  if (drafts() && S.form.labelled_by) store.set("name", "", S.form.labelled_by);
  store.drop("form", typed(key));
  S.view = result.item;
  S.base = result.item.hash;
  S.form = formFromView(result.item);
  if (!drafts()) S.form.support = evidence;
  S.dirty = false;
  const listed = items().find((item) => item.key === key);
  if (listed) listed.state = result.item.state;
  if (isDone(result.item)) recordPace(key);
  renderItem();
  renderChecks(result.checks);
  if (!drafts()) {
    renderReveal(result.item.reveal);
    renderAgreement(result.agreement);
  }
  const problems = (result.checks.findings || []).length + (result.checks.preview ? result.checks.preview.refused.length + result.checks.preview.warnings.length : 0);
  const said = `Saved ${result.item.rel} at ${new Date().toLocaleTimeString("en-GB")}. ${problems ? "The checks found something: see below." : "The checks found nothing to fix."}`;
  if (thenNext && S.index + 1 < items().length) {
    await openItem(S.index + 1);
    notice(said, "ok");
  } else {
    notice(thenNext ? `${said} That was the last item.` : said, "ok");
    refreshOffers();
  }
}

function conflict(message) {
  notice(message, "error", [
    "Load the saved version",
    async () => {
      store.drop("form", typed(current().key));
      await openItem(S.index);
      notice("Loaded the saved version.");
    },
  ]);
}

function findingList(findings) {
  return el(
    "ul",
    { class: "findings" },
    ...findings.map((f) =>
      el("li", { class: f.severity }, el("span", { class: "sev", text: f.severity === "error" ? "must fix" : "worth a look" }), " ", el("code", { text: f.code }), ` line ${f.line}: `, el("span", { text: f.message })),
    ),
  );
}

function renderChecks(checks) {
  const box = $("checks");
  S.checks = checks;
  if (!checks) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const parts = [el("h3", { text: "Checks" })];
  const own = checks.findings || [];
  parts.push(el("p", { text: own.length ? `On the ${drafts() ? "draft" : "label file"}:` : `On the ${drafts() ? "draft" : "label file"}: nothing to fix.` }));
  if (own.length) parts.push(findingList(own));
  const preview = checks.preview;
  if (drafts() && !preview) {
    parts.push(el("p", { class: "muted", text: "Once it says whether the documents answer it and names a slice, saving also runs the checks of promoting it." }));
  }
  if (preview) {
    const into = preview.to === "dev" ? "the dev set" : "the golden set";
    if (preview.error) parts.push(el("p", { class: "bad", text: `Promoting it into ${into}: ${preview.error}` }));
    else if (preview.refused.length) {
      parts.push(el("p", { class: "bad", text: `Promoting it into ${into} would be refused:` }), findingList(preview.refused));
    } else {
      parts.push(el("p", { class: "ok", text: `Ready to promote into ${into}.` }));
    }
    if (preview.warnings.length) parts.push(el("p", { text: "Worth a look before promoting:" }), findingList(preview.warnings));
    if (!preview.error && !preview.refused.length) {
      parts.push(el("p", {}, el("button", { type: "button", class: "primary", id: "promote-one", text: `Promote it into ${into}`, onclick: () => promoteKeys([S.view.key], preview.to) })));
    }
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

// -- promoting ------------------------------------------------------------------------------

async function promoteKeys(keys, to) {
  const box = $("promote-result");
  box.replaceChildren(el("p", { text: "Checking and promoting…" }));
  let result;
  try {
    result = await api("promote", { keys, to });
  } catch (error) {
    box.replaceChildren(el("p", { class: "bad", text: error.message }));
    notice(error.message, "error");
    return;
  }
  if (result.refused.length) {
    box.replaceChildren(el("p", { class: "bad", text: `Refused: nothing moved. ${result.refused.length} problem${result.refused.length === 1 ? "" : "s"} to fix first:` }), findingList(result.refused));
    notice("Promotion refused: see the list on the left.", "error");
    return;
  }
  const moved = result.promoted.map((p) => el("li", {}, el("code", { text: p.draft }), " → ", el("code", { text: p.case })));
  const files = result.promoted.flatMap((p) => [p.draft, p.case]).join(" ");
  box.replaceChildren(
    el("p", { class: "ok", text: `Moved ${result.promoted.length} draft${result.promoted.length === 1 ? "" : "s"}:` }),
    el("ul", { class: "moved" }, ...moved),
    el("p", { class: "muted", text: `Commit them: git add ${files} && git commit` + (result.to === "golden" ? ". The golden set changed: the version hook bumps golden.version at the commit." : "") }),
  );
  for (const key of keys) store.drop("form", typed(key));
  const at = S.index;
  await reloadState();
  await openItem(Math.min(at, items().length - 1), { keepNotice: true });
  notice(`Promoted ${result.promoted.length} into the ${result.to} set.`, "ok");
}

// -- second labeller: reveal, agreement, resolutions ----------------------------------------

function yesNo(value) {
  return value ? "yes" : "no";
}

function renderReveal(reveal) {
  const box = $("reveal");
  if (drafts() || !reveal) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  if (!reveal.case) {
    box.replaceChildren(el("h3", { text: "The set's label" }), findingList(reveal.findings));
    box.hidden = false;
    return;
  }
  const c = reveal.case;
  const rows = [["Can the documents answer it", c.answerable ? "yes" : c.false_premise ? "no: a false premise" : "no"]];
  if (c.expected_answer) rows.push(["The short answer", c.expected_answer]);
  if (c.expect.contains.length) rows.push(["Must contain", c.expect.contains.map((r) => r.join(" / ")).join("; ")]);
  if (c.expect.not_contains.length) rows.push(["Must not contain", c.expect.not_contains.join(", ")]);
  box.replaceChildren(
    el("h3", {}, "The set's label ", el("span", { class: "muted", text: `(${c.rel})` })),
    el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: v })])),
    reveal.agrees
      ? el("p", { class: "ok", text: "You agree with the set." })
      : el("p", { class: "bad", text: `You disagree: ${reveal.detail}.` }),
  );
  box.hidden = false;
}

function renderAgreement(report) {
  const box = $("agreement");
  if (drafts() || !report || !report.items) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  const parts = [el("h2", { text: "Agreement so far" })];
  for (const line of report.text.slice(1)) parts.push(el("p", { text: line }));
  const open = report.disagreements;
  parts.push(el("h3", { text: open.length ? `Disagreements (${open.filter((d) => !d.resolved).length} to resolve)` : "No disagreement" }));
  if (open.length) {
    parts.push(el("p", { class: "muted", text: "Each disagreement needs a written rule that decides it, and who decided: it goes into the case file as its resolution (or move the case to an ambiguous slice)." }));
    parts.push(el("ol", { class: "disagreements" }, ...open.map(disagreement)));
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}

function disagreement(d) {
  const head = el(
    "p",
    {},
    el("button", { type: "button", class: "link", text: d.id, title: "Open this label", onclick: () => { const i = items().findIndex((x) => x.key === d.id); if (i >= 0) openItem(i); } }),
    " ",
    el("span", { class: d.resolved ? "badge done" : "badge blank", text: d.resolved ? "resolved" : "to resolve" }),
    " ",
    el("span", { text: d.detail }),
  );
  if (d.resolved) {
    const r = d.resolution;
    const text = r && typeof r === "object" ? `${r.rule} (decided by ${r.decided_by})` : r || "in an ambiguous slice";
    return el("li", {}, head, el("p", { class: "muted", text: `Resolution: ${text}` }));
  }
  const rule = el("textarea", { rows: "2", maxlength: "5000", "aria-label": `The rule that decides ${d.id}`, placeholder: "The rule that decides it, e.g. a credit window counts from delivery, not dispatch" });
  const who = el("input", { type: "text", maxlength: "128", "aria-label": `Who decided ${d.id}`, placeholder: "Who decided (support-lead)" });
  who.value = store.get("name") || "";
  const button = el("button", {
    type: "button",
    text: "Save the resolution",
    onclick: async () => {
      try {
        const result = await api("resolve", { id: d.id, hash: d.hash, rule: rule.value, decided_by: who.value });
        if (who.value.trim()) store.set("name", "", who.value.trim());
        renderAgreement(result.agreement);
        const golden = result.golden ? " The golden set changed: commit it; the version hook bumps golden.version." : "";
        const found = result.findings.length ? ` The checks found: ${result.findings.map((f) => `${f.code} ${f.message}`).join("; ")}` : "";
        notice(`Wrote the resolution into ${result.case}.${golden}${found}`, "ok");
      } catch (error) {
        notice(error.message, "error");
      }
    },
  });
  return el("li", {}, head, el("div", { class: "resolve" }, rule, who, button));
}

// -- the documents --------------------------------------------------------------------------

async function runSearch() {
  const q = $("search").value.trim();
  const list = $("results");
  if (!q) {
    list.replaceChildren();
    return;
  }
  let result;
  try {
    result = await api("search", { q });
  } catch (error) {
    list.replaceChildren(el("li", { class: "bad", text: error.message }));
    return;
  }
  if (!result.results.length) {
    list.replaceChildren(el("li", { class: "placeholder", text: "Nothing found: try other words." }));
    return;
  }
  list.replaceChildren(
    ...result.results.map((r) =>
      el(
        "li",
        {},
        el(
          "button",
          { type: "button", class: "result", onclick: () => openDoc(r.doc, { start: r.start, end: r.end }) },
          el("span", { class: "result-doc", text: `${r.doc} · line ${r.line}` }),
          highlighted(clip(r.text, 240), r.matched),
        ),
      ),
    ),
  );
}

function highlighted(text, matched) {
  const out = el("span", { class: "result-text" });
  for (const token of text.split(/(\s+)/)) {
    const word = token.toLowerCase().replace(/[^\p{L}\p{N}£$€%]/gu, "");
    const hit = word && matched.some((m) => word === m || (m.length >= 5 && word.startsWith(m)));
    out.append(hit ? el("mark", { text: token }) : document.createTextNode(token));
  }
  return out;
}

async function openDoc(name, span) {
  try {
    if (!S.doc || S.doc.name !== name) S.doc = await api("document", { name });
  } catch (error) {
    notice(error.message, "error");
    return;
  }
  S.cursor = null;
  S.found = span || null;
  if (span) {
    const first = pieceAt(span.start);
    S.cursor = [first, first];
  }
  $("doc").hidden = false;
  $("doc-name").textContent = S.doc.name;
  renderDoc();
  const target = $("doc-text").querySelector(".found") || $("doc-text").querySelector(".cursor");
  if (target) target.scrollIntoView({ block: "center" });
  $("doc-text").focus({ preventScroll: true });
}

function pieceAt(offset) {
  const ends = S.doc.pieces;
  let lo = 0;
  let hi = ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] > offset) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function pieceStart(k) {
  return k === 0 ? 0 : S.doc.pieces[k - 1];
}

function marked() {
  const here = (q) => q && q.doc === S.doc.name && q.start !== null && q.start !== undefined;
  const spans = S.form ? [...S.form.support.filter(here)] : [];
  if (S.form && here(S.form.premise)) spans.push(S.form.premise);
  return spans.map((q) => [q.start, q.end]);
}

const STRUCTURE = /^[ \t]*(?:#|\||[-*+>] |\d+(?:\.\d+)*\.?[ \t])/;

// Line breaks inside a paragraph (documents are wrapped at a fixed width) are shown as
// spaces, so the text flows in the column; the text itself, and so every offset, is unchanged.
function softBreaks(text) {
  const soft = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    if (text[i - 1] === "\n" || text[i + 1] === "\n" || i + 1 >= text.length) continue;
    const line = text.slice(text.lastIndexOf("\n", i - 1) + 1, i).trimStart();
    if (line.startsWith("|") || line.startsWith("#")) continue;
    if (STRUCTURE.test(text.slice(i + 1, i + 40))) continue;
    soft.push(i);
  }
  return soft;
}

function renderDoc() {
  const text = S.doc.text;
  const ends = S.doc.pieces;
  const quoted = marked();
  const found = S.found ? [S.found.start, S.found.end] : null;
  if (!S.doc.soft) S.doc.soft = new Set(softBreaks(text));
  const cuts = new Set([0, text.length, ...ends]);
  for (const at of S.doc.soft) {
    cuts.add(at);
    cuts.add(at + 1);
  }
  for (const [a, b] of quoted) {
    cuts.add(a);
    cuts.add(b);
  }
  if (found) {
    cuts.add(found[0]);
    cuts.add(found[1]);
  }
  const points = [...cuts].filter((x) => x >= 0 && x <= text.length).sort((a, b) => a - b);
  const box = $("doc-text");
  const nodes = [];
  for (let i = 0; i + 1 < points.length; i += 1) {
    const a = points[i];
    const b = points[i + 1];
    if (a === b) continue;
    const piece = pieceAt(a);
    const head = text.slice(pieceStart(piece), ends[piece]).trim();
    const classes = ["seg"];
    if (quoted.some(([s, e]) => a >= s && b <= e)) classes.push("quoted");
    if (found && a >= found[0] && b <= found[1]) classes.push("found");
    if (head.startsWith("#")) classes.push("heading");
    else if (head.startsWith("|")) classes.push("table");
    if (S.cursor && piece >= S.cursor[0] && piece <= S.cursor[1]) classes.push("cursor");
    if (b === a + 1 && S.doc.soft.has(a)) classes.push("soft");
    nodes.push(el("span", { class: classes.join(" "), "data-piece": String(piece), text: text.slice(a, b) }));
  }
  box.replaceChildren(...nodes);
}

function renderCursor() {
  for (const span of $("doc-text").children) {
    const piece = Number(span.dataset.piece);
    span.classList.toggle("cursor", Boolean(S.cursor) && piece >= S.cursor[0] && piece <= S.cursor[1]);
  }
  const first = $("doc-text").querySelector(".cursor");
  if (first) first.scrollIntoView({ block: "nearest" });
}

function offsetIn(box, node, offset) {
  const range = document.createRange();
  range.setStart(box, 0);
  range.setEnd(node, offset);
  return range.toString().length;
}

function selectedRange() {
  const selection = window.getSelection();
  if (!S.doc || !selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  const box = $("doc-text");
  if (!box.contains(range.startContainer) || !box.contains(range.endContainer)) return null;
  return { start: offsetIn(box, range.startContainer, range.startOffset), end: offsetIn(box, range.endContainer, range.endOffset) };
}

function cursorRange() {
  if (!S.doc || !S.cursor) return null;
  return { start: pieceStart(S.cursor[0]), end: S.doc.pieces[S.cursor[1]] };
}

async function useSelection() {
  if (!S.view || S.view.problems.length) return;
  const range = selectedRange() || cursorRange();
  if (!range) {
    notice("Select the words that answer the question in a document first (search, open a passage, then select it with the mouse or the arrow keys).", "error");
    return;
  }
  let kind = kindOf(S.form);
  if (kind === "absent") {
    notice("You said the documents do not say. Choose “Yes, a document answers it” or the false premise first.", "error");
    return;
  }
  if (kind === null) {
    S.form.answerable = true;
    S.form.false_premise = false;
    kind = "answer";
  }
  let q;
  try {
    q = await api("quote", { doc: S.doc.name, start: range.start, end: range.end, digest: S.doc.digest });
  } catch (error) {
    notice(error.message, "error");
    return;
  }
  q.fresh = true;
  if (kind === "premise") S.form.premise = q;
  else if (!S.form.support.some((x) => x.doc === q.doc && x.quote === q.quote)) S.form.support.push(q);
  const selection = window.getSelection();
  if (selection) selection.removeAllRanges();
  S.cursor = null;
  S.found = null;
  syncTags();
  changed();
  renderForm();
  renderDoc();
  refreshOffers();
  notice(`Took the passage from ${q.doc}${kind === "premise" ? " as what says otherwise" : ""}.`, "ok");
}

function docKeys(event) {
  if (!S.doc) return;
  const last = S.doc.pieces.length - 1;
  if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    S.found = null;
    const down = event.key === "ArrowDown";
    if (!S.cursor) S.cursor = [0, 0];
    else if (event.shiftKey && down) S.cursor = [S.cursor[0], Math.min(last, S.cursor[1] + 1)];
    else if (event.shiftKey) S.cursor = [S.cursor[0], Math.max(S.cursor[0], S.cursor[1] - 1)];
    else {
      const at = down ? Math.min(last, S.cursor[1] + 1) : Math.max(0, S.cursor[0] - 1);
      S.cursor = [at, at];
    }
    renderCursor();
  } else if (event.key === "Enter" && !event.ctrlKey && !event.metaKey) {
    event.preventDefault();
    useSelection();
  }
}

// -- notices, keys, wiring ------------------------------------------------------------------

function notice(message, kind, action) {
  const box = $("notice");
  if (!message) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.className = "notice " + (kind || "");
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  const parts = [el("span", { text: message })];
  if (action) parts.push(" ", el("button", { type: "button", text: action[0], onclick: action[1] }));
  box.replaceChildren(...parts);
  box.hidden = false;
}

function typing(target) {
  if (!target || !target.tagName) return false;
  if (target.isContentEditable || target.tagName === "TEXTAREA" || target.tagName === "SELECT") return true;
  return target.tagName === "INPUT" && !["radio", "checkbox", "button", "submit"].includes(target.type);
}

function keys(event) {
  const mod = event.ctrlKey || event.metaKey;
  if (S.loading && event.key !== "Escape" && (mod || event.altKey || !typing(event.target))) {
    event.preventDefault(); // a shortcut pressed while an item loads is not for the one left
    return;
  }
  if (mod && !event.altKey && (event.code === "KeyS" || event.key === "s")) {
    event.preventDefault();
    save(false);
    return;
  }
  if (mod && event.key === "Enter") {
    event.preventDefault();
    save(true);
    return;
  }
  if (event.altKey && !mod) {
    const action = { KeyN: () => move(1), KeyP: () => move(-1), KeyK: skip, KeyQ: useSelection }[event.code];
    if (action) {
      event.preventDefault();
      action();
    }
    return;
  }
  if (event.key === "Escape") {
    if ($("keys").open) $("keys").close();
    else if (document.activeElement) document.activeElement.blur();
    return;
  }
  if (mod || typing(event.target)) return;
  if (event.key === "/") {
    event.preventDefault();
    $("search").focus();
    $("search").select();
  } else if (event.key === "?") {
    $("keys").showModal();
  } else if (event.target !== $("doc-text")) {
    const kinds = drafts() ? { 1: "answer", 2: "premise", 3: "absent" } : { 1: "answer", 2: "absent" };
    if (kinds[event.key]) {
      event.preventDefault();
      setKind(kinds[event.key]);
      const radio = document.querySelector(`input[name="kind"][value="${kinds[event.key]}"]`);
      if (radio) radio.focus();
    }
  }
}

function addFrom(inputId, add) {
  const input = $(inputId);
  const value = input.value.trim();
  if (!value) return;
  add(value);
  input.value = "";
  changed();
  renderForm();
  input.focus();
}

function bindStatic() {
  document.addEventListener("keydown", keys);
  $("previous").addEventListener("click", () => move(-1));
  $("next").addEventListener("click", () => move(1));
  $("skip").addEventListener("click", skip);
  $("keys-button").addEventListener("click", () => $("keys").showModal());
  $("keys-close").addEventListener("click", () => $("keys").close());
  $("form").addEventListener("submit", (event) => {
    event.preventDefault();
    save(false);
  });
  $("save-next").addEventListener("click", () => save(true));
  for (const radio of document.querySelectorAll('input[name="kind"]')) radio.addEventListener("change", () => setKind(radio.value));
  const bind = (id, field) =>
    $(id).addEventListener("input", () => {
      S.form[field] = $(id).value;
      changed();
      if (field === "expected_answer") renderFailOffers();
    });
  bind("answer", "expected_answer");
  bind("slice", "slice");
  bind("labelled-by", "labelled_by");
  bind("notes", "notes");
  bind("lead", "lead");
  const onEnter = (id, button) =>
    $(id).addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        $(button).click();
      }
    });
  $("contains-add").addEventListener("click", () => addFrom("contains-new", (v) => S.form.contains.push([v])));
  $("not-add").addEventListener("click", () => addFrom("not-new", (v) => { if (!S.form.not_contains.includes(v)) S.form.not_contains.push(v); }));
  $("pass-add").addEventListener("click", () => addFrom("pass-new", (v) => { if (!S.form.pass.includes(v)) S.form.pass.push(v); }));
  $("fail-add").addEventListener("click", () => addFrom("fail-new", (v) => { if (!S.form.fail.includes(v)) S.form.fail.push(v); }));
  onEnter("contains-new", "contains-add");
  onEnter("not-new", "not-add");
  onEnter("pass-new", "pass-add");
  onEnter("fail-new", "fail-add");
  $("search-go").addEventListener("click", runSearch);
  $("search").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      runSearch();
    }
  });
  $("use-selection").addEventListener("click", useSelection);
  $("doc-text").addEventListener("keydown", docKeys);
  $("doc-text").addEventListener("mouseup", () => {
    const selection = window.getSelection();
    if (selection && selection.isCollapsed && S.doc && selection.anchorNode) {
      const at = offsetIn($("doc-text"), selection.anchorNode, selection.anchorOffset);
      const piece = pieceAt(at);
      S.cursor = [piece, piece];
      S.found = null;
      renderCursor();
    }
  });
  $("promote-all").addEventListener("click", () => {
    const keys = items().filter((item) => item.state === "labelled").map((item) => item.key);
    if (keys.length) promoteKeys(keys, $("promote-to").value);
  });
  $("promote-to").addEventListener("change", () => {
    store.set("to", "", $("promote-to").value);
    const into = $("promote-to").value === "dev" ? "dev" : "golden";
    notice(`Drafts now go into the ${into} set: save again to see what promoting this one there would find.`);
  });
}

document.addEventListener("DOMContentLoaded", start);
