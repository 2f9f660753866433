// Calls (everyone), under /dashboard/calls, one file per page operation: the list with filters
// and paging, its CSV export, a call's live status and transcript (its page's script polls it),
// "place a test call", a call's page, its Hang up, its recording and its replay against a version.
// Reads through the calls service; the test call through the API's own placement (calls/place.ts)
// and schema; Hang up through the API's own endCall (calls/hang-up.ts); the replay through the
// agent-tests service (../agents/replays.ts).
import { screenRouter } from "../../../dashboard/routers";
import { registerExportCallsPage } from "./export";
import { registerHangUpCallPage } from "./hang-up";
import { registerListCallsPage } from "./list";
import { registerLiveCallPage } from "./live";
import { registerPlaceTestCallPage } from "./place-test-call";
import { registerCallRecordingPage } from "./recording";
import { registerReplayCallPage } from "./replay";
import { registerShowCallPage } from "./show";

export function callPages() {
  const app = screenRouter();
  registerListCallsPage(app);
  registerExportCallsPage(app);
  registerPlaceTestCallPage(app);
  registerShowCallPage(app);
  registerLiveCallPage(app);
  registerHangUpCallPage(app);
  registerCallRecordingPage(app);
  registerReplayCallPage(app);
  return app;
}
