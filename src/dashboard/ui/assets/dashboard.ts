// Every page's small progressive enhancement: copy buttons (`data-copy` names the element whose
// text is copied) and confirmations (`data-confirm` on a form). Everything works without it.
import { browser } from "./dom";

const { document } = browser;

document.addEventListener("click", (event) => {
  const button = event.target?.closest("[data-copy]");
  const source = button && document.getElementById(button.getAttribute("data-copy") ?? "");
  if (!button || !source) return;
  browser.navigator.clipboard?.writeText((source.textContent ?? "").trim()).then(() => {
    button.textContent = "Copied";
    setTimeout(() => {
      button.textContent = "Copy";
    }, 1500);
  });
});

document.addEventListener("submit", (event) => {
  const message = event.target?.getAttribute("data-confirm");
  if (message && !browser.confirm(message)) event.preventDefault();
});
