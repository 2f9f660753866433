// Voices (everyone), under /dashboard/voices, one file per page operation: the system catalog
// (read-only) and the workspace's own (create, edit, delete), each playable (a sample, metered), through the API's schemas and
// service (voices/service.ts: the one ownership rule, in the pages' words).
import { screenRouter } from "../../../dashboard/routers";
import { registerCreateVoicePage } from "./create";
import { registerDeleteVoicePage } from "./delete";
import { registerEditVoicePage } from "./edit";
import { registerListVoicesPage } from "./list";
import { registerNewVoicePage } from "./new";
import { registerVoiceSamplePage } from "./sample";
import { registerUpdateVoicePage } from "./update";

export function voicePages() {
  const app = screenRouter();
  registerListVoicesPage(app);
  registerNewVoicePage(app);
  registerVoiceSamplePage(app);
  registerCreateVoicePage(app);
  registerEditVoicePage(app);
  registerUpdateVoicePage(app);
  registerDeleteVoicePage(app);
  return app;
}
