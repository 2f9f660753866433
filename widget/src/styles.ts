// The widget's styles, inside its shadow root: nothing leaks out, and `all: initial` on the root
// keeps the host page's inherited styles (fonts, colours, line heights) out.
export const CSS = `
:host{all:initial!important}
.root{all:initial;position:fixed;bottom:20px;z-index:2147483000;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--t);-webkit-font-smoothing:antialiased}
.root.right{right:20px}.root.left{left:20px}
*,*::before,*::after{box-sizing:border-box}
button,textarea{font:inherit;color:inherit}
.launcher{width:56px;height:56px;border-radius:50%;border:0;background:var(--a);color:var(--at);cursor:pointer;display:grid;place-items:center;box-shadow:0 6px 20px rgba(0,0,0,.22);transition:transform .15s}
.launcher:hover{transform:scale(1.05)}
.right .launcher{margin-left:auto}
.launcher svg{width:26px;height:26px}
:focus-visible{outline:3px solid var(--a);outline-offset:2px}
.launcher:focus-visible,.head button:focus-visible{outline-color:var(--t)}
.panel{position:absolute;bottom:72px;width:min(370px,calc(100vw - 40px));height:min(540px,calc(100vh - 120px));display:flex;flex-direction:column;background:var(--b);border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.25);overflow:hidden}
.right .panel{right:0}.left .panel{left:0}
.panel[hidden]{display:none}
.head{display:flex;align-items:center;gap:8px;padding:12px 12px 12px 16px;background:var(--a);color:var(--at)}
.head h2{flex:1;margin:0;font-size:16px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.head button{width:34px;height:34px;border:0;border-radius:8px;background:transparent;color:var(--at);cursor:pointer;display:grid;place-items:center}
.head button:hover{background:rgba(255,255,255,.18)}
.head svg{width:20px;height:20px}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:8px}
.msg{max-width:85%;padding:8px 12px;border-radius:14px;white-space:pre-wrap;overflow-wrap:anywhere}
.msg.agent{align-self:flex-start;background:rgba(127,127,127,.14);border-bottom-left-radius:4px}
.msg.user{align-self:flex-end;background:var(--a);color:var(--at);border-bottom-right-radius:4px}
.note{align-self:center;font-size:12px;opacity:.75;text-align:center}
.note.error{color:#b42318;opacity:1}
.typing{align-self:flex-start;padding:8px 12px;border-radius:14px;background:rgba(127,127,127,.14)}
.typing i{display:inline-block;width:6px;height:6px;margin:0 2px;border-radius:50%;background:currentColor;opacity:.5;animation:b 1s infinite}
.typing i:nth-child(2){animation-delay:.15s}.typing i:nth-child(3){animation-delay:.3s}
@keyframes b{50%{opacity:1;transform:translateY(-2px)}}
.call{display:flex;align-items:center;gap:10px;padding:10px 14px;border-top:1px solid rgba(127,127,127,.2)}
.call .state{flex:1;font-size:13px}
.call button{border:0;border-radius:999px;padding:8px 14px;cursor:pointer;font-weight:600;background:var(--a);color:var(--at)}
.call button.hang{background:#d92d20;color:#fff}
.call button:disabled{opacity:.55;cursor:default}
.call.big{flex-direction:column;gap:12px;padding:18px 16px 22px}
.call.big .state{text-align:center;font-size:14px}
.call.big button{padding:11px 26px;font-size:15px}
form{display:flex;align-items:flex-end;gap:8px;padding:10px;border-top:1px solid rgba(127,127,127,.2)}
textarea{flex:1;resize:none;max-height:120px;min-height:40px;padding:9px 12px;border:1px solid rgba(127,127,127,.45);border-radius:10px;background:var(--b);line-height:1.4}
textarea:focus-visible{outline:2px solid var(--a);outline-offset:0;border-color:transparent}
.send{width:40px;height:40px;border:0;border-radius:10px;background:var(--a);color:var(--at);cursor:pointer;display:grid;place-items:center}
.send:disabled{opacity:.5;cursor:default}
.send svg{width:18px;height:18px}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
@media (prefers-reduced-motion:reduce){*{animation:none!important;transition:none!important}}
`;
