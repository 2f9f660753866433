// Old import path, kept for test/unit/lib/zod-messages.test.ts until it imports
// src/dashboard/forms.ts; then this folder goes.
export { validate } from "../forms";
