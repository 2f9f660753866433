// API Keys (admins only; spec: Authentication 5), under /dashboard/api-keys, one file per page
// operation: create with a Key Name, the secret shown once, the list, revoke. The API's schema and
// the keys service.
import { adminOnly, screenRouter } from "../../../dashboard/routers";
import { registerCreateApiKeyPage } from "./create";
import { registerListApiKeysPage } from "./list";
import { registerRevokeApiKeyPage } from "./revoke";

export function apiKeyPages() {
  const app = screenRouter(adminOnly);
  registerListApiKeysPage(app);
  registerCreateApiKeyPage(app);
  registerRevokeApiKeyPage(app);
  return app;
}
