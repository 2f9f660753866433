// Calls (everyone), under /dashboard/calls, one file per page operation: the list with filters,
// "place a test call", a call's page and its recording. Reads through the calls service; the test
// call through the API's own placement (calls/place.ts) and schema.
import { screenRouter } from "../../../dashboard/routers";
import { registerListCallsPage } from "./list";
import { registerPlaceTestCallPage } from "./place-test-call";
import { registerCallRecordingPage } from "./recording";
import { registerShowCallPage } from "./show";

export function callPages() {
  const app = screenRouter();
  registerListCallsPage(app);
  registerPlaceTestCallPage(app);
  registerShowCallPage(app);
  registerCallRecordingPage(app);
  return app;
}
