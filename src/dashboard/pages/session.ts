// Old import path, kept for test/integration/{input,security,webhooks/ssrf}.test.ts until they
// import src/dashboard/session.ts; then this folder goes.
export { csrfToken } from "../session";
