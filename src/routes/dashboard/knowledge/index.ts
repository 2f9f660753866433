// Knowledge (everyone), under /dashboard/knowledge, one file per page operation: the workspace's
// knowledge bases (list, create), a knowledge base's page (rename, delete, its documents: upload
// a file with the browser's progress, add text, import a URL, delete; followed while processed:
// live.ts) and a test question. Every operation is the API's own (src/knowledge/: the ownership
// rule, the documents' checks and limits, the search and its metering).
import { screenRouter } from "../../../dashboard/routers";
import { registerAddDocumentPage } from "./add-document";
import { registerCreateKnowledgePage } from "./create";
import { registerDeleteKnowledgePage } from "./delete";
import { registerDeleteDocumentPage } from "./delete-document";
import { registerListKnowledgePage } from "./list";
import { registerLiveKnowledgePage } from "./live";
import { registerQueryKnowledgePage } from "./query";
import { registerShowKnowledgePage } from "./show";
import { registerUpdateKnowledgePage } from "./update";

export function knowledgePages() {
  const app = screenRouter();
  registerListKnowledgePage(app);
  registerCreateKnowledgePage(app);
  registerShowKnowledgePage(app);
  registerUpdateKnowledgePage(app);
  registerDeleteKnowledgePage(app);
  registerLiveKnowledgePage(app);
  registerAddDocumentPage(app);
  registerDeleteDocumentPage(app);
  registerQueryKnowledgePage(app);
  return app;
}
