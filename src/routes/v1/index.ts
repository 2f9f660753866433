import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../context";
import { registerCreateAgent } from "./agents/create";
import { registerDeleteAgent } from "./agents/delete";
import { registerGetAgent } from "./agents/get";
import { registerListAgents } from "./agents/list";
import { registerUpdateAgent } from "./agents/update";
import { registerPhoneNumbers } from "./calls/phone-numbers";
import { registerPlaceCalls } from "./calls/place";
import { registerReadCalls } from "./calls/read";
import { registerGetMe } from "./me/get";
import { registerCreateVoice } from "./voices/create";
import { registerDeleteVoice } from "./voices/delete";
import { registerGetVoice } from "./voices/get";
import { registerListVoices } from "./voices/list";
import { registerUpdateVoice } from "./voices/update";
import { registerWidgets } from "./widgets";

/** Every /v1 operation, one file each, registered here. */
export function registerV1(app: OpenAPIHono<AppEnv>): void {
  registerGetMe(app);

  registerListAgents(app);
  registerCreateAgent(app);
  registerGetAgent(app);
  registerUpdateAgent(app);
  registerDeleteAgent(app);

  registerPlaceCalls(app);
  registerReadCalls(app);
  registerPhoneNumbers(app);

  registerListVoices(app);
  registerCreateVoice(app);
  registerGetVoice(app);
  registerUpdateVoice(app);
  registerDeleteVoice(app);

  registerWidgets(app);
}
