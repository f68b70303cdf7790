// The playground page: renders what the server reads from the fakes, and posts the user's gestures,
// which the server turns into what Discord and Slack send the bot when a real user acts.

const panes = {
  discord: document.getElementById("discord"),
  slack: document.getElementById("slack"),
};
const part = (pane, role) => panes[pane].querySelector(`[data-role="${role}"]`);
const shown = {
  discord: { messages: "", modal: null },
  slack: { messages: "", direct: "", home: "", runs: "", modal: null },
};
/**
 * What a reload keeps, as a client does: the modals the user cancelled (a client closes them
 * without telling the bot, so the fakes still hold them open), who acts in each pane and where.
 */
const saved = {
  get(key, fallback) {
    try {
      return JSON.parse(localStorage.getItem(`playground:${key}`)) ?? fallback;
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    localStorage.setItem(`playground:${key}`, JSON.stringify(value));
  },
};
const dismissed = new Set(saved.get("dismissed", []));
function dismiss(key) {
  dismissed.add(key);
  saved.set("dismissed", [...dismissed].slice(-200));
}

/** Who acts in a pane: the person picked in its bar. */
const actingAs = (pane) => part(pane, "user").value;
/** Where the Discord pane acts: a channel, or "dm" for the acting person's DM with the bot. */
const place = () => part("discord", "place").value;

async function post(path, body) {
  const pane = path.split("/")[0];
  const answer = await fetch(`/api/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, user: actingAs(pane), ...(pane === "discord" && { channel: place() }) }),
  });
  const value = await answer.json();
  if (!answer.ok) throw new Error(value.error ?? `HTTP ${answer.status}`);
  return value;
}

function showError(pane, error) {
  part(pane, "error").textContent = error ? String(error.message ?? error) : "";
}

async function act(pane, path, body) {
  showError(pane, "");
  try {
    return await post(path, body);
  } catch (error) {
    showError(pane, error);
    return undefined;
  }
}

function fill(pane, role, html) {
  if (html === shown[pane][role]) return;
  const messages = part(pane, role);
  // A conversation follows its newest message; a Home stays where the person reads it.
  const atBottom =
    role !== "home" &&
    role !== "runs" &&
    messages.scrollHeight - messages.scrollTop - messages.clientHeight < 80;
  messages.innerHTML = html;
  shown[pane][role] = html;
  if (atBottom) messages.scrollTop = messages.scrollHeight;
  for (const media of messages.querySelectorAll("img, video")) {
    media.addEventListener(media.tagName === "IMG" ? "load" : "loadedmetadata", () => {
      if (atBottom) messages.scrollTop = messages.scrollHeight;
    });
  }
}

// ---- Slack's direct messages: a tab beside the channel, with a count of new ones ---------------

/** How many DM messages each person has seen, by user id. */
const seenDirect = new Map();
let directCount = 0;

function showTab(pane, tab) {
  for (const button of panes[pane].querySelectorAll("[data-tab]"))
    button.classList.toggle("on", button.dataset.tab === tab);
  for (const role of ["messages", "direct", "home", "workflows"]) {
    const view = part(pane, role);
    if (view) view.hidden = role !== tab;
  }
  const view = part(pane, tab);
  // A Home (and the steps' forms) read from the top; a conversation from its newest message.
  view.scrollTop = tab === "home" || tab === "workflows" ? 0 : view.scrollHeight;
  // Opening the Home tab is what tells the app to publish it (app_home_opened), every time.
  if (tab === "home") void act(pane, "slack/home", {});
  countDirect();
}

function countDirect() {
  const reading = !part("slack", "direct").hidden;
  if (reading) seenDirect.set(actingAs("slack"), directCount);
  const unread = directCount - (seenDirect.get(actingAs("slack")) ?? 0);
  const badge = part("slack", "unread");
  badge.hidden = unread <= 0;
  badge.textContent = String(unread);
}

function render(pane, state) {
  fill(pane, "messages", state.html);
  if (pane === "slack") {
    fill(pane, "direct", state.direct);
    fill(pane, "home", state.home);
    fill(pane, "runs", state.runs);
    directCount = state.directCount;
    countDirect();
  }
  const overlay = part(pane, "overlay");
  const modal = state.modal && !dismissed.has(state.modal.key) ? state.modal : null;
  if (modal?.key !== shown[pane].modal) {
    shown[pane].modal = modal?.key ?? null;
    overlay.innerHTML = modal?.html ?? "";
    overlay.hidden = !modal;
    overlay.querySelector("input, textarea, select")?.focus();
  }
}

async function poll() {
  try {
    const as = new URLSearchParams({
      discord: actingAs("discord"),
      slack: actingAs("slack"),
      place: place(),
    });
    const state = await (await fetch(`/api/state?${as}`)).json();
    render("discord", state.discord);
    render("slack", state.slack);
  } finally {
    setTimeout(poll, 300);
  }
}

function readFiles(input) {
  return Promise.all(
    [...input.files].map(
      (file) =>
        new Promise((resolve, reject) => {
          const reader = new FileReader();
          reader.onload = () =>
            resolve({ name: file.name, type: file.type, data: String(reader.result).split(",")[1] ?? "" });
          reader.onerror = () => reject(reader.error);
          reader.readAsDataURL(file);
        }),
    ),
  );
}

/** A form's values by input name: text, the chosen options, or the files picked. */
async function formValues(form) {
  const values = {};
  for (const field of form.querySelectorAll("[name]")) {
    if (field.type === "file") {
      if (field.files.length) values[field.name] = await readFiles(field);
    } else if (field.type === "checkbox") {
      values[field.name] = [...(values[field.name] ?? []), ...(field.checked ? [field.value] : [])];
    } else if (field.multiple) {
      values[field.name] = [...field.selectedOptions].map((o) => o.value);
    } else if (field.value !== "") {
      values[field.name] = field.value;
    }
  }
  return values;
}

const paneOf = (element) => element.closest(".pane").id;

document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-act]");
  if (!target || target.disabled) return;
  const pane = paneOf(target);
  const act_ = target.dataset.act;
  if (act_ === "discord-button") {
    void act(pane, "discord/button", { message: target.dataset.message, custom: target.dataset.custom });
  } else if (act_ === "slack-button") {
    void act(pane, "slack/action", {
      message: target.dataset.message,
      action: target.dataset.action,
      block: target.dataset.block,
    });
  } else if (act_ === "dismiss") {
    dismiss(shown[pane].modal);
    shown[pane].modal = null;
    part(pane, "overlay").hidden = true;
  }
});

document.addEventListener("click", (event) => {
  const tab = event.target.closest("[data-tab]");
  if (tab) showTab(paneOf(tab), tab.dataset.tab);
});

document.addEventListener("change", (event) => {
  const target = event.target;
  if (target.dataset.act === "discord-select") {
    void act(paneOf(target), "discord/select", {
      message: target.dataset.message,
      custom: target.dataset.custom,
      values: [target.value],
    });
  } else if (target.dataset.act === "slack-select") {
    void act(paneOf(target), "slack/action", {
      message: target.dataset.message,
      action: target.dataset.action,
      block: target.dataset.block,
      value: target.value,
    });
  }
});

document.addEventListener("submit", async (event) => {
  const form = event.target;
  event.preventDefault();
  const submit = form.querySelector('[type="submit"]');
  submit.disabled = true;
  for (const error of form.querySelectorAll(".error")) error.textContent = "";
  try {
    const values = await formValues(form);
    const answer =
      form.dataset.act === "discord-modal"
        ? await post("discord/modal", { custom: form.dataset.custom, fields: values })
        : form.dataset.act === "slack-step"
          ? await post("slack/step", { step: form.dataset.step, values })
          : await post("slack/view", { view: form.dataset.view, values });
    for (const [block, message] of Object.entries(answer.errors ?? {})) {
      const slot = form.querySelector(`[data-block="${CSS.escape(block)}"] .error`);
      if (slot) slot.textContent = message;
    }
  } catch (error) {
    showError(paneOf(form), error);
  } finally {
    submit.disabled = false;
  }
});

// ---- The command boxes: completion of commands, options and choices ---------------------------

const { menus, people, places, steps, languages } = await (await fetch("/api/page")).json();
part("slack", "steps").innerHTML = steps;
/** A picker that starts where the user left it before a reload. */
function remembered(picker, key) {
  const value = saved.get(key, null);
  if ([...picker.options].some((o) => o.value === value)) picker.value = value;
  picker.addEventListener("change", () => saved.set(key, picker.value));
}
for (const pane of ["discord", "slack"]) {
  const picker = part(pane, "user");
  for (const person of people[pane]) picker.add(new Option(`as ${person.name}`, person.id));
  remembered(picker, `as:${pane}`);
}
for (const where of places) part("discord", "place").add(new Option(where.label, where.id));
remembered(part("discord", "place"), "place");

// Every member's clients in one language. A reload keeps it; a new playground starts in English,
// so the kept choice is said again.
const language = document.querySelector('header [data-role="language"]');
for (const { id, name } of languages) language.add(new Option(name, id));
remembered(language, "language");
const speak = () =>
  fetch("/api/language", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ locale: language.value }),
  });
language.addEventListener("change", speak);
if (language.value !== "en") await speak();

/**
 * `@` and the start of a name: the members of the pane's workspace, as the clients offer them.
 * Sent, `@Name` becomes the person's mention (the server turns it into `<@id>`).
 */
function completeMention(pane, line) {
  const at = line.lastIndexOf("@");
  if (at < 0 || !/^$|[\s:]$/.test(line.slice(0, at))) return undefined;
  const typed = line.slice(at + 1).toLowerCase();
  const found = people[pane].filter((p) => p.name.toLowerCase().startsWith(typed));
  if (found.length === 0) return undefined;
  return found.map((p) => ({
    label: `@${p.name}`,
    detail: "mention",
    line: `${line.slice(0, at)}@${p.name} `,
  }));
}

/** The longest command path the typed words begin with. */
function commandIn(menu, typed) {
  return menu
    .filter((c) => typed === c.path || typed.startsWith(`${c.path} `))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

function commandChoices(menu, typed, prefix) {
  const words = typed.toLowerCase();
  return menu
    .filter((c) => c.path.startsWith(words) || (words && c.path.includes(words)))
    .map((c) => ({ label: `${prefix}${c.path}`, detail: c.description, line: `${prefix}${c.path} ` }));
}

const optionDetail = (o) => `${o.required ? "required · " : ""}${o.description}`;

/** Discord: `/image generate prompt:a red fox aspect_ratio:16:9`. */
function completeDiscord(line) {
  if (!line.startsWith("/")) return [];
  const typed = line.slice(1);
  const command = commandIn(menus.discord, typed);
  if (!command || typed === command.path) return commandChoices(menus.discord, typed, "/");
  const head = line.slice(0, line.lastIndexOf(" ") + 1);
  const word = line.slice(head.length);
  const option = /^([\w-]+):(.*)$/.exec(word);
  const used = new Set([...line.matchAll(/\s([\w-]+):/g)].map((m) => m[1]));
  if (option) {
    const spec = command.options.find((o) => o.name === option[1]);
    // The bot itself suggests these values: Discord's client sends it an autocomplete interaction.
    if (spec?.autocomplete) return { ask: { line: head, option: spec.name, value: option[2] } };
    return (spec?.choices ?? [])
      .filter((c) => c.toLowerCase().startsWith(option[2].toLowerCase()))
      .map((c) => ({ label: c, detail: spec.name, line: `${head}${spec.name}:${c} ` }));
  }
  // An option's value may hold spaces: a new option starts only after a space, with its name.
  const inValue =
    /\s[\w-]+:\S*/.test(line) && word !== "" && !command.options.some((o) => o.name.startsWith(word));
  if (inValue) return [];
  return command.options
    .filter((o) => o.type !== "file" && !used.has(o.name) && o.name.startsWith(word))
    .map((o) => ({ label: `${o.name}:`, detail: optionDetail(o), line: `${head}${o.name}:` }));
}

/** Slack: `/media image generate a red fox --aspect_ratio 16:9`. */
function completeSlack(line) {
  if (!line.startsWith("/")) return [];
  const typed = /^\/media\s+([\s\S]*)$/.exec(line)?.[1];
  if (typed === undefined)
    return "/media".startsWith(line)
      ? commandChoices([{ path: "media", description: "media-bot" }], "", "/")
      : [];
  const command = commandIn(menus.slack, typed);
  if (!command || typed === command.path) return commandChoices(menus.slack, typed, "/media ");
  const head = line.slice(0, line.lastIndexOf(" ") + 1);
  const word = line.slice(head.length);
  const main = command.options.find((o) => o.main);
  // The main text's words, where it takes only a few (`usage export`), come first.
  if (main && !word.startsWith("-") && typed.slice(command.path.length).trim() === word)
    return main.choices
      .filter((c) => c.startsWith(word.toLowerCase()))
      .map((c) => ({ label: c, detail: main.description, line: `${head}${c} ` }));
  const flag = /--([\w-]+)\s+$/.exec(head);
  const spec = flag && command.options.find((o) => !o.main && o.name === flag[1]);
  if (spec?.choices)
    return spec.choices
      .filter((c) => c.toLowerCase().startsWith(word.toLowerCase()))
      .map((c) => ({ label: c, detail: spec.name, line: `${head}${c} ` }));
  if (!word.startsWith("-")) return [];
  const used = new Set([...line.matchAll(/--([\w-]+)/g)].map((m) => m[1]));
  return command.options
    .filter((o) => !o.main && !used.has(o.name) && o.name.startsWith(word.replace(/^--?/, "")))
    .map((o) => ({ label: `--${o.name}`, detail: optionDetail(o), line: `${head}--${o.name} ` }));
}

/** Suggestions under a command box: Tab or a click takes one, arrows move, Enter sends. */
function commandBox(pane, input, complete, send) {
  const list = part(pane, "suggestions");
  let choices = [];
  let chosen = -1;
  let asked = 0;

  async function suggest(line) {
    const found = complete(line);
    if (!found.ask) return found;
    const ticket = asked;
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (ticket !== asked) return [];
    const answer = await post("discord/autocomplete", found.ask).catch(() => ({ choices: [] }));
    const { line: head, option } = found.ask;
    return answer.choices.map((c) => ({
      label: c.name,
      detail: option,
      line: `${head}${option}:${c.value} `,
    }));
  }

  async function show() {
    const ticket = ++asked;
    const found = await suggest(input.value);
    // A newer keystroke has its own suggestions.
    if (ticket !== asked) return;
    choices = found;
    chosen = -1;
    list.hidden = choices.length === 0;
    list.innerHTML = "";
    choices.forEach((choice, i) => {
      const item = document.createElement("li");
      item.dataset.index = String(i);
      item.innerHTML = '<span class="l"></span><span class="d"></span>';
      item.firstChild.textContent = choice.label;
      item.lastChild.textContent = choice.detail;
      list.append(item);
    });
  }

  function accept(index) {
    const choice = choices[index];
    if (!choice) return;
    input.value = choice.line;
    input.focus();
    void show();
  }

  function highlight(index) {
    chosen = (index + choices.length) % choices.length;
    for (const item of list.children) item.classList.toggle("on", item.dataset.index === String(chosen));
  }

  list.addEventListener("mousedown", (event) => {
    event.preventDefault();
    const item = event.target.closest("li");
    if (item) accept(Number(item.dataset.index));
  });
  input.addEventListener("input", () => void show());
  input.addEventListener("focus", () => void show());
  input.addEventListener("blur", () => {
    list.hidden = true;
  });
  input.addEventListener("keydown", async (event) => {
    if (event.key === "Tab" && choices.length) {
      event.preventDefault();
      accept(chosen < 0 ? 0 : chosen);
    } else if ((event.key === "ArrowDown" || event.key === "ArrowUp") && choices.length) {
      event.preventDefault();
      highlight(chosen + (event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Enter" && chosen >= 0) {
      event.preventDefault();
      accept(chosen);
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (await send(input.value)) {
        input.value = "";
        void show();
      }
    } else if (event.key === "Escape") {
      list.hidden = true;
    }
  });
}

const discordFiles = document.getElementById("discord-files");
discordFiles.addEventListener("change", () => {
  part("discord", "files").textContent = [...discordFiles.files].map((f) => `📎 ${f.name}`).join("  ");
});

const completing = (pane, complete) => (line) => completeMention(pane, line) ?? complete(line);

commandBox(
  "discord",
  document.getElementById("discord-line"),
  completing("discord", completeDiscord),
  async (line) => {
    const sent = await act("discord", "discord/command", { line, files: await readFiles(discordFiles) });
    if (sent) {
      discordFiles.value = "";
      part("discord", "files").textContent = "";
    }
    return sent;
  },
);
commandBox("slack", document.getElementById("slack-line"), completing("slack", completeSlack), (line) => {
  // Commands run in the channel: its answers show there.
  showTab("slack", "messages");
  return act("slack", "slack/command", { line });
});

void poll();
