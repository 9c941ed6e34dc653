/**
 * The local inspector page, served by `watch --inspect`: one self-contained
 * HTML document (styles and script inline, nothing fetched but its own
 * `/feed`), so it works offline and ships in `dist/` as a string. It draws each
 * live state-machine actor as nested state boxes from the machine outline in
 * the feed, highlights the states the actor is in, and lists its recent
 * events and states. Feed text is only ever set with `textContent`.
 */

/** The page's HTML. */
export const INSPECTOR_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcp-actors inspector</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1rem; background: #fafafa; color: #222; }
  h1 { font-size: 1.2rem; margin: 0 0 .5rem; }
  #status { color: #666; margin-bottom: 1rem; }
  #actors { display: grid; grid-template-columns: repeat(auto-fill, minmax(28rem, 1fr)); gap: 1rem; }
  .actor { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: .6rem; }
  .actor.stopped { opacity: .55; }
  .actor h2 { font-size: 1rem; margin: 0 0 .4rem; }
  .actor h2 .machine, .actor h2 .lifecycle { color: #777; font-weight: normal; font-size: .85rem; margin-left: .4rem; }
  .state { border: 1px solid #bbb; border-radius: 5px; padding: .2rem .4rem; margin: .25rem 0; background: #fff; }
  .state.parallel > .children { display: flex; gap: .4rem; } .state.parallel > .children > .state { flex: 1; border-style: dashed; }
  .state.active { border-color: #2a7; background: #f1fbf5; }
  .state.current { border: 2px solid #086; background: #c9f0da; font-weight: bold; }
  .state-key { font-family: ui-monospace, monospace; }
  .state .on { color: #777; font-size: .75rem; font-weight: normal; }
  .children { margin-left: .6rem; }
  .recent { display: flex; gap: 1rem; font-size: .8rem; }
  .recent ol { margin: .3rem 0; padding-left: 1.2rem; max-height: 10rem; overflow: auto; font-family: ui-monospace, monospace; }
</style>
</head>
<body>
<h1>mcp-actors inspector</h1>
<div id="status">connecting to the watcher…</div>
<div id="actors"></div>
<script>
'use strict';
const RECENT = 20;
const actors = new Map();
const container = document.getElementById('actors');
const status = document.getElementById('status');

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function drawState(state, boxes) {
  const box = element('div', 'state ' + state.type);
  box.dataset.path = state.path;
  const title = element('div');
  title.append(element('span', 'state-key', state.key));
  if (state.on.length > 0) title.append(' ', element('span', 'on', '· ' + state.on.join(' · ')));
  box.append(title);
  if (state.children.length > 0) {
    const children = element('div', 'children');
    for (const child of state.children) children.append(drawState(child, boxes));
    box.append(children);
  }
  boxes.set(state.path, box);
  return box;
}

function push(list, text) {
  list.prepend(element('li', '', text));
  while (list.children.length > RECENT) list.lastChild.remove();
}

function onActor(message) {
  const card = element('section', 'actor');
  card.dataset.session = message.session;
  card.dataset.name = message.name;
  card.dataset.machine = message.machine.id;
  const heading = element('h2', '', message.name);
  const lifecycle = element('span', 'lifecycle', '');
  heading.append(element('span', 'machine', 'machine ' + message.machine.id), lifecycle);
  const boxes = new Map();
  const chart = element('div', 'chart');
  // The root box is the machine itself; its children are the states.
  for (const child of message.machine.root.children) chart.append(drawState(child, boxes));
  const recent = element('div', 'recent');
  const states = element('ol', 'states');
  const events = element('ol', 'events');
  const statesColumn = element('div', '', 'states'); statesColumn.append(states);
  const eventsColumn = element('div', '', 'events'); eventsColumn.append(events);
  recent.append(statesColumn, eventsColumn);
  card.append(heading, chart, recent);
  actors.get(message.session)?.card.remove();
  actors.set(message.session, { card, boxes, states, events, lifecycle });
  container.append(card);
}

function onState(message) {
  const actor = actors.get(message.session);
  if (!actor) return;
  const inside = new Set(message.states);
  for (const [path, box] of actor.boxes) {
    box.classList.toggle('active', inside.has(path));
    // The current states are the deepest ones the actor is in (one per parallel region).
    box.classList.toggle('current', inside.has(path) && !message.states.some((other) => other.startsWith(path + '.')));
  }
  const leaves = message.states.filter((path) => !message.states.some((other) => other.startsWith(path + '.')));
  push(actor.states, leaves.join(' + '));
  actor.card.classList.toggle('stopped', message.status !== 'active');
  actor.lifecycle.textContent = message.status === 'active' ? '' : message.status;
}

function onEvent(message) {
  const actor = actors.get(message.session);
  if (!actor) return;
  push(actor.events, new Date(message.at).toISOString().slice(11, 23) + ' ' + message.event);
}

const feed = new EventSource('feed');
feed.onopen = () => { status.textContent = 'live'; document.body.dataset.feed = 'open'; };
feed.onerror = () => { status.textContent = 'the watcher is gone; retrying…'; document.body.dataset.feed = 'closed'; };
feed.onmessage = (message) => {
  const data = JSON.parse(message.data);
  if (data.type === 'actor') onActor(data);
  else if (data.type === 'state') onState(data);
  else if (data.type === 'event') onEvent(data);
};
</script>
</body>
</html>
`;
