// Entry point of the Cloudflare Worker. (Workers require the default export.)
import { createApp } from "./app";
import type { Bindings } from "./env";

const app = createApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Bindings>;
