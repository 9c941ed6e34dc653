/**
 * The page `watch --inspect` serves at `/stately`: the hosted Stately
 * inspector (stately.ai) in a frame, fed from the relay's WebSocket on the
 * same loopback server. It is what `@statelyai/inspect`'s own server serves
 * (0.7: the hosted page takes inspection messages by `postMessage` from the
 * page that frames it, after it says `@statelyai.connected`), except that
 * messages go only to the stately.ai origin and only that origin is heard.
 * It needs internet for the hosted page; the local page at `/` does not.
 */

/** The hosted Stately inspector this page frames. */
export const STATELY_INSPECTOR_ORIGIN = 'https://stately.ai';

/** Where the relay's WebSocket is, on the inspector's server. */
export const STATELY_SOCKET_PATH = '/stately/socket';

/** The bridge page's HTML. */
export const STATELY_BRIDGE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mcp-actors in the Stately inspector</title>
<style>html, body { height: 100%; margin: 0; } iframe { width: 100%; height: 100%; border: 0; }</style>
</head>
<body>
<iframe id="stately" src="${STATELY_INSPECTOR_ORIGIN}/inspect" title="Stately inspector"></iframe>
<script>
  const frame = document.getElementById('stately');
  const waiting = [];
  let connected = false;
  const deliver = (message) => frame.contentWindow.postMessage(message, '${STATELY_INSPECTOR_ORIGIN}');
  window.addEventListener('message', (event) => {
    if (event.origin !== '${STATELY_INSPECTOR_ORIGIN}' || !event.data || event.data.type !== '@statelyai.connected') return;
    connected = true;
    waiting.splice(0).forEach(deliver);
  });
  const open = () => {
    const socket = new WebSocket('ws://' + location.host + '${STATELY_SOCKET_PATH}');
    socket.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (connected) deliver(message); else waiting.push(message);
    };
    // A dropped relay (the watcher restarted, or this tab fell behind) reconnects and is sent the present again.
    socket.onclose = () => setTimeout(open, 2000);
  };
  open();
</script>
</body>
</html>
`;
